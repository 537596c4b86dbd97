"""`mathhammer serve` as a process: binds loopback, answers, stops cleanly (issue 16 parts 4-5)."""

from __future__ import annotations

import json
import signal
import urllib.error
import urllib.request

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install '.[web]')")

from tests.test_reliability_harness import run_inprocess  # noqa: E402
from tests.web_server import Server  # noqa: E402


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_serve_answers_on_loopback_and_stops_cleanly(sig):
    with Server("--no-warm") as server:
        assert server.url.startswith("http://127.0.0.1:")
        status, body = _get(server.url + "/api/roll?expression=2D6")
        assert status == 200 and json.loads(body)["results"]["mean"]["value"] == 7.0
        status, body = _get(server.url + "/api/roll?expression=2D6&n-trials=99999999999")
        assert status == 422
        code, seconds = server.stop(sig)
    assert code == 0, server.lines
    assert seconds < 10
    assert server.lines[-1] == "mathhammer serve: stopped"
    assert not any("Traceback" in line for line in server.lines)
    assert not any("warning" in line for line in server.lines)  # loopback: no warning


def test_a_long_monte_carlo_query_does_not_hold_up_the_stop():
    import threading

    with Server("--no-warm", "--time-limit", "60") as server:
        url = (server.url + "/api/wm/duel?attacker=khador/juggernaut&target=cygnar/ironclad"
               "&n-trials=10000000&seed=1")
        threading.Thread(target=_get, args=(url,), daemon=True).start()
        import time

        time.sleep(1.5)  # the query is computing now
        code, seconds = server.stop(signal.SIGINT)
    assert code == 0, server.lines
    assert seconds < 8


def test_bad_serve_options_are_one_line():
    code, _, err = run_inprocess(["serve", "--port", "70000"])
    assert code == 2
    assert err.strip() == ("error: --port: must be between 0 and 65,535 (got 70000); "
                           "fix: use e.g. --port 1")


def test_another_host_prints_a_warning_and_takes_any_host_name():
    """127.0.0.2 is still this machine (loopback range) but not the default address."""
    with Server("--no-warm", "--host", "127.0.0.2") as server:
        assert server.url.startswith("http://127.0.0.2:")
        request = urllib.request.Request(server.url + "/api/health",
                                         headers={"Host": "table.example"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200
        code, _ = server.stop()
    assert code == 0
    assert any(line.startswith("warning: listening on 127.0.0.2: other machines can reach")
               for line in server.lines)
