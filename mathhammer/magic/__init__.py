"""Magic phase (MG-1..MG-10): flow, channel, casting, dispelling, whole phases."""
