"""A fuzz of every web parameter of every served command (issue 26): no 5xx, ever.

Each example puts one long, huge, non-finite or malformed value (or a malformed key)
on top of a valid query of a command and sends it to the API or the page. Whatever
the value, the answer is an answer (200), a refusal with its one line (4xx), the time
limit (422) or busy (503) — never a 500, so never a traceback in the server's log.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[web]')")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from mathhammer.web import Limits, create_app  # noqa: E402
from mathhammer.web import commands as cmds  # noqa: E402
from tests.test_reliability_harness import BASE_ARGS  # noqa: E402
from tests.test_web_api import SERVED, _path_id, _small  # noqa: E402

#: the kinds of value that once gave a 500 or a traceback, and their neighbours
HOSTILE = ["1" + "0" * 5000, "9" * 300, "-" + "9" * 40, "1e309", "-inf", "nan", "inf",
           "1e-400", "\u00b2", "\u0663", "x" * 1999, "\x1b[31mred", "2D6" * 300, "-1", "0",
           "%", ",,,", ":::", "1:2:3", "stats:ws=" + "9" * 5000, "--help", "4+", " ",
           "\u202e", "D" + "9" * 100, "9" * 40 + "D6", "3D6+" + "9" * 60, "\x00", "/etc/passwd",
           "../" * 30, "y" * 300]

VALUES = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(max_size=30),
    st.integers(min_value=-10**45, max_value=10**45).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=31, max_value=6000).map(lambda n: "7" * n),
)
KEYS = st.one_of(st.text(min_size=1, max_size=20),
                 st.sampled_from(["output=/tmp/x", "--seed", "scheduler=tcp://x", "_", "-o",
                                  "n_trials", "N-TRIALS", "seed ", "plot"]))


def _base(command: cmds.Command) -> dict[str, str]:
    argv = _small(command, list(BASE_ARGS[command.name]))
    return dict(cmds.argv_to_query(command, argv, path_id=_path_id))


@pytest.fixture(scope="module")
def client():
    # a short time limit: a hostile value that makes a query heavy ends as a 422 quickly
    with TestClient(create_app(Limits(workers=2, queue=8, time_limit=1.0))) as c:
        yield c


def _check(response, what) -> None:
    assert response.status_code < 500 or response.status_code == 503, (
        what, response.status_code, response.text[-300:])
    if response.status_code >= 400 and response.headers["content-type"].startswith("application"):
        line = response.json()["error"]
        assert line and "\n" not in line and "Traceback" not in line


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_no_value_of_any_parameter_gets_a_5xx(client, data):
    command = data.draw(st.sampled_from(SERVED), label="command")
    param = data.draw(st.sampled_from(command.web_params), label="parameter")
    value = data.draw(VALUES, label="value")
    query = _base(command)
    query[param.key] = value
    route = data.draw(st.sampled_from(["/api/", "/"]), label="route")
    _check(client.get(f"{route}{command.slug}?{urlencode(query)}"), (command.name, param.key))


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(key=KEYS, value=st.text(max_size=10))
def test_no_key_gets_a_5xx_and_an_unknown_key_is_a_400(client, key, value):
    command = cmds.find("roll")
    response = client.get(f"/api/roll?{urlencode({'expression': '2D6', key: value})}")
    _check(response, key)
    if command.web_param(key) is None:
        assert response.status_code == 400


@pytest.mark.parametrize("value", HOSTILE[:8], ids=lambda v: v[:12])
def test_a_hostile_value_in_a_chart_query_is_a_4xx(client, value):
    response = client.get("/plot/roll.svg?" + urlencode({"expression": value}))
    assert 400 <= response.status_code < 500, response.text[:200]
