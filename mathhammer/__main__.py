"""``python -m mathhammer`` is the CLI."""

from mathhammer.cli import main

main()
