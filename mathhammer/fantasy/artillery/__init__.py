"""Artillery and templates (FB-R1..R7): stone throwers, cannons, bolt throwers, fire
throwers and volley guns, by template geometry or to-hit rolls."""
