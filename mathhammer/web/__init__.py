"""``mathhammer serve``: pages and a JSON API over the same code path as the CLI.

No rule logic lives here: a web query is turned into the CLI's argv and run through
the Typer app in-process (:mod:`mathhammer.web.runner`), so forms, validation, error
text and JSON are the command line's own. Needs the ``web`` extra (Starlette, uvicorn,
Jinja2, python-multipart).
"""

from mathhammer.web.app import create_app
from mathhammer.web.runner import Limits

__all__ = ["Limits", "create_app"]
