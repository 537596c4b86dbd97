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


# ------------------------------------------------------------------------- issue 26
HEAVY = ("/api/fb/challenge?model_a=stats:ws=5,s=4,t=4,w=20,i=5,a=10"
         "&model_b=stats:ws=5,s=4,t=4,w=20,i=5,a=10")  # exact, > 20 s on this machine


def _connect(url: str):
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return socket.create_connection((parts.hostname, parts.port), timeout=10)


def _timed_get(url: str) -> tuple[int, float]:
    import time

    began = time.monotonic()
    status, _ = _get(url)
    return status, time.monotonic() - began


def test_a_client_that_leaves_frees_its_worker_within_two_seconds():
    import time

    with Server("--no-warm", "--workers", "1", "--time-limit", "60") as server:
        assert _get(server.url + "/api/roll?expression=2D6")[0] == 200  # modules loaded
        for rounds in (10, 11, 12):  # three heavy exact queries, each abandoned
            sock = _connect(server.url)
            sock.sendall(f"GET {HEAVY}&rounds={rounds} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                         .encode())
            time.sleep(0.3)
            sock.close()
        status, seconds = _timed_get(server.url + "/api/roll?expression=3D4")  # uncached
        health = json.loads(_get(server.url + "/api/health")[1])
        code, _ = server.stop()
    assert status == 200 and seconds < 2.0, seconds
    assert health["stopped_jobs"] >= 1 and health["in_flight"] == 0
    assert code == 0
    assert not any("Traceback" in line or "ERROR" in line for line in server.lines), server.lines


def test_slow_connections_do_not_stop_a_normal_request():
    """Half-sent request heads: the cap closes the oldest, the timeout the rest. A server the
    slow heads stopped would answer after the 4 s timeout at the earliest: the normal request
    must come well before (2 s leaves room for a loaded machine)."""
    import time

    with Server("--no-warm", "--max-connections", "50", "--request-timeout", "4") as server:
        slow = []
        for _ in range(200):
            sock = _connect(server.url)
            sock.sendall(b"GET /api/roll?expression=2D6 HTTP/1.1\r\nHost: 127.0.0.1")
            slow.append(sock)
        status, seconds = _timed_get(server.url + "/api/roll?expression=2D8")
        time.sleep(5.0)  # past the timeout: every slow head is closed by now
        still_open = 0
        for sock in slow:
            sock.settimeout(0.01)
            try:
                still_open += sock.recv(1) != b""
            except TimeoutError:
                still_open += 1
            except OSError:
                pass
            sock.close()
        code, _ = server.stop()
    assert status == 200 and seconds < 2.0, seconds
    assert still_open == 0
    assert code == 0
    warnings = [line for line in server.lines if "open connections" in line]
    assert 1 <= len(warnings) <= 5  # the log is rate-limited


def test_a_slow_body_is_a_408_and_a_client_leaving_mid_body_no_traceback():
    import time

    with Server("--no-warm", "--request-timeout", "1") as server:
        sock = _connect(server.url)
        sock.sendall(b"POST /api/run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/"
                     b"form-data; boundary=x\r\nContent-Length: 500\r\n\r\n--x\r\n")
        answer = sock.recv(4096)
        sock.close()
        sock = _connect(server.url)
        sock.sendall(b"POST /api/run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/"
                     b"form-data; boundary=x\r\nContent-Length: 500\r\n\r\n--x\r\n")
        time.sleep(0.2)
        sock.close()  # gone half-way through the body
        time.sleep(0.3)
        assert _get(server.url + "/api/roll?expression=2D6")[0] == 200
        code, _ = server.stop()
    assert answer.startswith(b"HTTP/1.1 408")
    assert code == 0
    assert not any("Traceback" in line or "ERROR" in line for line in server.lines), server.lines


def test_ctrl_c_on_a_loaded_server_is_quick_and_leaves_no_folder(tmp_path):
    import threading
    import time

    with Server("--no-warm", "--workers", "2", env={"TMPDIR": str(tmp_path)}) as server:
        assert _get(server.url + "/api/roll?expression=2D6")[0] == 200
        for rounds in (20, 21, 22, 23):
            threading.Thread(target=_get, args=(f"{server.url}{HEAVY}&rounds={rounds}",),
                             daemon=True).start()
        time.sleep(1.0)
        code, seconds = server.stop(signal.SIGINT)
    # a stop that waited for the jobs would take over 20 s: 3 s leaves room for a loaded machine
    assert code == 0 and seconds < 3.0, seconds
    assert list(tmp_path.iterdir()) == []  # the private folder and the uploads folder are gone
