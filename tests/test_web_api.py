"""`mathhammer serve`'s HTTP API against the command line (issue 16 parts 2-5).

Every query command the app has is served: its JSON is compared byte for byte with
``mathhammer … --format json`` for the same arguments and seed (the base invocations
of the reliability harness, so a new command is covered once it has one). Bad values
answer 4xx with the CLI's own error line; caps, the queue limit, the time limit and
the path rules are tested one by one.
"""

from __future__ import annotations

import html
import threading
from pathlib import Path
from urllib.parse import urlencode

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[web]')")

from starlette.testclient import TestClient  # noqa: E402

from mathhammer.profiles import profiles_root  # noqa: E402
from mathhammer.web import Limits, create_app  # noqa: E402
from mathhammer.web import commands as cmds  # noqa: E402
from mathhammer.web.runner import QueryFailed  # noqa: E402
from tests.test_reliability_harness import BASE_ARGS, run_inprocess  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = "scenarios/warmachine_two_jacks_vs_charger"


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(Limits(workers=2, queue=8))) as c:
        yield c


def _cli(argv: list[str]) -> tuple[int, str, str]:
    return run_inprocess(argv, timeout=120)


def _path_id(value: str) -> str:
    root = str(profiles_root().resolve())
    return str(Path(value).resolve()).removeprefix(root + "/").removesuffix(".toml")


def _query(command: cmds.Command, argv: list[str]) -> str:
    return urlencode(cmds.argv_to_query(command, argv, path_id=_path_id))


def _small(command: cmds.Command, argv: list[str]) -> list[str]:
    """Small and seeded; a bundled list, meta or options file named by its path goes by its name."""
    named = [str((profiles_root() / folder).resolve()) + "/" for folder in ("lists", "metas", "options")]
    argv = [Path(a).stem if any(str(Path(a).resolve()).startswith(d) for d in named) else a
            for a in argv]
    extra = []
    if "seed" in command.shared:
        extra += ["--seed", "7"]
    if command.param("n-trials") is not None:
        extra += ["--n-trials", "3000"]
    return argv + extra


SERVED = [c for c in cmds.query_commands() if c.name in BASE_ARGS]


def test_every_query_command_of_the_app_is_served():
    names = {c.name for c in cmds.query_commands()}
    assert {"roll", "wm attack", "wm duel", "fb attack", "magic phase", "compare"} <= names
    assert not names & {"demo", "warmup", "serve", "profiles list"}  # not queries
    missing = names - set(BASE_ARGS)
    assert not missing, f"give these a base invocation in test_reliability_harness: {missing}"


@pytest.mark.parametrize("command", SERVED, ids=lambda c: c.name)
def test_api_json_is_the_cli_json_byte_for_byte(client, command):
    argv = _small(command, list(BASE_ARGS[command.name]))
    code, out, err = _cli([*command.path, *argv, "--format", "json", "--quiet"])
    assert code == 0, err
    response = client.get(f"/api/{command.slug}?{_query(command, argv)}")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.text == out


def test_wm_attack_with_seed_equals_the_cli_in_its_results(client):
    argv = ["--stat", "7", "--defense", "12", "--power", "19", "--armor", "18", "--attacks", "3",
            "--charge", "--boxes", "15", "--method", "mc", "--n-trials", "20000", "--seed", "1"]
    code, out, _ = _cli(["wm", "attack", *argv, "--format", "json", "--quiet"])
    query = ("stat=7&defense=12&power=19&armor=18&attacks=3&charge=1&boxes=15&method=mc"
             "&n-trials=20000&seed=1")
    response = client.get(f"/api/wm/attack?{query}")
    assert code == 0 and response.status_code == 200
    assert response.text == out
    assert response.json()["results"] == __import__("json").loads(out)["results"]


def test_a_monte_carlo_answer_without_a_seed_links_to_itself_with_the_seed(client):
    response = client.get("/api/roll?expression=3D6&method=mc&n-trials=5000")
    seed = response.json()["seed"]
    link = response.headers["x-mathhammer-link"]
    assert f"seed={seed}" in link
    again = client.get(link.replace("/roll", "/api/roll", 1))
    assert again.text == response.text  # the link reproduces the answer


BAD = [
    ("wm/attack", "stat=x&defense=12&power=19&armor=18",
     ["wm", "attack", "--stat", "x", "--defense", "12", "--power", "19", "--armor", "18"]),
    ("wm/attack", "defense=12&power=19&armor=18",
     ["wm", "attack", "--defense", "12", "--power", "19", "--armor", "18"]),
    ("wm/duel", "attacker=khador/juggernaut&target=cygnar/ironclad&focus=9",
     ["wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--focus", "9"]),
    ("wm/duel", "attacker=khador/juggernot&target=cygnar/ironclad",
     ["wm", "duel", "khador/juggernot", "cygnar/ironclad"]),
    ("roll", "expression=2D", ["roll", "2D"]),
    ("roll", "expression=2D6&method=fast", ["roll", "2D6", "--method", "fast"]),
    ("roll", "expression=2D6&n-trials=0&method=mc", ["roll", "2D6", "--n-trials", "0",
                                                     "--method", "mc"]),
    ("fb/attack", "attacks=-1&ws=4&target-ws=3&strength=4&toughness=4",
     ["fb", "attack", "--attacks=-1", "--ws", "4", "--target-ws", "3", "--strength", "4",
      "--toughness", "4"]),
    ("magic/cast", "dice=3&cv=9&level=x", ["magic", "cast", "--dice", "3", "--cv", "9",
                                           "--level", "x"]),
]


@pytest.mark.parametrize(("slug", "query", "argv"), BAD, ids=[b[1][:40] for b in BAD])
def test_a_bad_value_gets_the_clis_own_error_line(client, slug, query, argv):
    code, _, err = _cli(argv)
    assert code == 2
    response = client.get(f"/api/{slug}?{query}")
    assert 400 <= response.status_code < 500
    assert "error: " + response.json()["error"] == err.strip()
    page = client.get(f"/{slug}?{query}")
    assert page.status_code == response.status_code
    assert err.strip() in html.unescape(page.text)


# ------------------------------------------------------------------------- paths
@pytest.mark.parametrize("value", ["/etc/passwd", "~/x.toml", "../../etc/hostname",
                                   "profiles/warmachine/khador/juggernaut.toml", "a\\b"])
def test_text_naming_a_server_path_is_refused(client, value):
    response = client.get("/api/wm/duel?" + urlencode({"attacker": value,
                                                       "target": "cygnar/ironclad"}))
    assert response.status_code == 400
    assert "not paths" in response.json()["error"]
    assert "root:" not in response.text


@pytest.mark.parametrize("value", ["/etc/passwd", "../../../etc/passwd", "scenarios/../../x",
                                   "scenarios/nope", "warmachine/khador/../../../etc/passwd"])
def test_a_file_parameter_takes_bundled_files_only(client, value):
    response = client.get("/api/run?" + urlencode({"scenario": value}))
    assert response.status_code == 400
    assert "names no bundled file" in response.json()["error"]


def test_reads_outside_the_bundled_data_are_refused_even_past_the_text_check(tmp_path):
    """Defence in depth: a relative name that is a file in the server's folder."""
    import os

    (tmp_path / "sneaky").mkdir()
    (tmp_path / "sneaky" / "jack").write_text('game = "warmachine"\n', encoding="utf-8")
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        with TestClient(create_app()) as c:
            response = c.get("/api/wm/duel?attacker=sneaky/jack&target=cygnar/ironclad")
    finally:
        os.chdir(old)
    assert response.status_code == 400
    assert "is not a file this server may read" in response.json()["error"]


def test_a_bundled_scenario_runs_as_the_cli_runs_it(client):
    path = profiles_root() / f"{SCENARIO}.toml"
    code, out, _ = _cli(["run", str(path), "--format", "json"])
    response = client.get(f"/api/run?scenario={SCENARIO}")
    assert code == 0 and response.text == out


def test_an_uploaded_scenario_runs_like_the_same_file(client):
    path = profiles_root() / f"{SCENARIO}.toml"
    code, out, _ = _cli(["run", str(path), "--format", "json"])
    response = client.post("/api/run", files={"scenario": ("mine.toml", path.read_bytes())})
    assert code == 0 and response.status_code == 200
    assert response.text == out


def test_an_uploaded_profile_is_used_for_a_text_parameter(client):
    path = profiles_root() / "warmachine" / "khador" / "juggernaut.toml"
    argv = ["wm", "duel", str(path), "cygnar/ironclad", "--seed", "3", "--n-trials", "3000"]
    code, out, _ = _cli([*argv, "--format", "json", "--quiet"])
    response = client.post("/api/wm/duel?target=cygnar/ironclad&seed=3&n-trials=3000",
                           files={"attacker": ("jugg.toml", path.read_bytes())})
    assert code == 0 and response.status_code == 200, response.text
    assert response.text == out


def test_a_broken_upload_gets_the_clis_file_error_naming_the_upload(client):
    response = client.post("/api/run", files={"scenario": ("broken.toml", b"game = [\n")})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error.startswith("broken.toml") and "is not valid TOML" in error
    assert "/tmp" not in error and "mathhammer-web" not in error


def test_uploads_are_removed_after_the_query(client):
    runner = client.app.state.runner
    path = profiles_root() / f"{SCENARIO}.toml"
    client.post("/api/run", files={"scenario": ("x.toml", path.read_bytes())})
    assert [p for p in runner.upload_root.iterdir() if p.name.startswith("q-")] == []


def test_an_upload_for_no_parameter_is_refused(client):
    response = client.post("/api/roll?expression=2D6", files={"nope": ("x.toml", b"a = 1")})
    assert response.status_code == 400
    assert "has no parameter of that name" in response.json()["error"]


def test_server_owned_options_are_refused(client):
    for key in ("output", "plot", "threads", "scheduler", "format"):
        response = client.get(f"/api/roll?expression=2D6&{key}=x")
        assert response.status_code == 400
        assert "is set by the web server" in response.json()["error"]


SMUGGLED = ["output%3D{dir}/x", "plot%3D{dir}/x.png", "scheduler%3Dtcp://127.0.0.1:9",
            "--output", "-o", "%20output", "output%20", "Output", "o", "_output",
            "format%3Djson", "quiet%3D1", "at-least%3D{dir}", "expression%3D3D6"]


@pytest.mark.parametrize("key", SMUGGLED)
def test_a_server_option_in_any_spelling_of_a_key_is_refused_and_touches_no_file(
        client, tmp_path, key):
    """Issue 26: a key is a parameter's name and nothing else (no "name=value", no flags)."""
    key = key.format(dir=tmp_path)
    for prefix in ("/api/", "/", "/plot/"):
        slug = "roll.svg" if prefix == "/plot/" else "roll"
        response = client.get(f"{prefix}{slug}?expression=2D6&{key}=1")
        assert response.status_code == 400, (prefix, key, response.text[:200])
        assert 'id="cli"' not in response.text  # no copy command for a refused query
    assert list(tmp_path.iterdir()) == []  # no probe file was ever created there


def test_an_unknown_key_names_the_closest_parameter(client):
    response = client.get("/api/wm/attack?stat=7&defense=12&power=19&armor=18&boxs=1")
    assert response.status_code == 400
    assert response.json()["error"] == ("boxs: is not a parameter of wm attack; fix: did you "
                                        "mean boxes? the parameters are listed at /api/commands")


def test_the_copy_command_holds_allowed_parameters_only(client):
    page = client.get("/roll?expression=2D6&at-least=8")
    assert page.status_code == 200
    line = html.unescape(page.text.split('id="cli" readonly value="')[1].split('"')[0])
    assert line == "mathhammer roll 2D6 --at-least 8"
    chosen = {"expression": ["2D6"], "output": ["/tmp/x"], "output=/tmp/x": ["1"]}
    assert cmds.cli_line(cmds.find("roll"), chosen) == "mathhammer roll 2D6"


def test_the_copy_command_writes_control_characters_as_escapes():
    line = cmds.cli_line(cmds.find("roll"), {"expression": ["2D6\x1b[31m'"]})
    assert line == "mathhammer roll $'2D6\\x1b[31m\\''"
    assert "\x1b" not in line


# ------------------------------------------------------------------------- caps
def test_too_many_trials_is_a_422_naming_the_cap(client):
    response = client.get("/api/roll?expression=2D6&method=mc&n-trials=10000001")
    assert response.status_code == 422
    assert "above this server's limit of 10,000,000 trials" in response.json()["error"]
    assert "--precision with the time limit" in response.json()["error"]
    # a command with no --precision is not told to use one
    response = client.get("/api/fb/battle?list_a=wfb8_empire&list_b=wfb8_orcs"
                          "&n-trials=10000001")
    assert response.status_code == 422 and "precision" not in response.json()["error"]


def test_an_oversized_query_is_a_414(client):
    response = client.get("/api/roll?expression=" + "1" * 9000)
    assert response.status_code == 414


def test_an_oversized_body_is_a_413(client):
    response = client.post("/api/run", files={"scenario": ("big.toml", b"# x\n" * 80_000)})
    assert response.status_code == 413


def test_a_body_that_is_not_a_form_is_a_415(client):
    response = client.post("/api/roll?expression=2D6", content=b"{}",
                           headers={"content-type": "application/json"})
    assert response.status_code == 415


def test_a_query_past_the_time_limit_stops_and_says_so():
    with TestClient(create_app(Limits(time_limit=0.3))) as c:
        response = c.get("/api/wm/duel?attacker=khador/juggernaut&target=cygnar/ironclad"
                         "&method=mc&n-trials=10000000&seed=1")
        assert response.status_code == 422
        assert "did not finish within this server's 0.3 s" in response.json()["error"]
        assert c.get("/api/health").json()["status"] == "ok"  # and the server goes on


def test_a_full_queue_answers_503_with_retry_after():
    with TestClient(create_app(Limits(workers=1, queue=0))) as c:
        runner = c.app.state.runner
        release = threading.Event()
        blocker = runner.submit(lambda: release.wait(10))
        try:
            response = c.get("/api/roll?expression=2D6")
            assert response.status_code == 503
            assert response.headers["retry-after"] == "1"
            assert "busy" in response.json()["error"]
        finally:
            release.set()
            blocker.result(5)
        assert c.get("/api/roll?expression=2D6").status_code == 200


def test_stopping_ends_a_running_monte_carlo_at_its_next_chunk():
    import time

    from mathhammer.web.runner import QueryFailed, Runner

    runner = Runner(Limits(time_limit=60))
    try:
        ticket = runner.start(lambda t: runner.run(
            ["wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--quiet", "--method=mc",
             "--n-trials=10000000", "--seed=1", "--threads=1"], ticket=t))
        time.sleep(0.5)
        began = time.monotonic()
        runner.stop_all("the server is shutting down")
        with pytest.raises(QueryFailed) as failed:
            ticket.future.result(10)
        assert time.monotonic() - began < 2.0  # the acceptance bound: free within 2 s
        assert failed.value.status == 503 and "shutting down" in failed.value.line
    finally:
        runner.close()


def test_a_foreign_host_name_is_refused_on_a_loopback_server(client):
    assert client.get("/api/health", headers={"host": "evil.example"}).status_code == 400


# ------------------------------------------------------------------------- other endpoints
def test_health_profiles_files_and_commands(client):
    health = client.get("/api/health").json()
    assert health["status"] == "ok" and health["max_trials"] == 10_000_000
    profiles = client.get("/api/profiles").json()
    code, out, _ = _cli(["profiles", "list", "--format", "json"])
    assert code == 0 and profiles == __import__("json").loads(out)  # the CLI's list
    wm = client.get("/api/profiles?game=fantasy").json()["profiles"]
    assert wm and all(p["game"] == "fantasy" for p in wm)
    files = {f["id"] for f in client.get("/api/files").json()["files"]}
    assert SCENARIO in files and "lists/khador_battlebox" in files
    described = {c["command"]: c for c in client.get("/api/commands").json()["commands"]}
    flags = {p["flag"] for p in described["wm attack"]["params"]}
    assert {"--stat", "--boost-hit", "--seed"} <= flags and "--output" not in flags


def test_an_unknown_command_is_a_404(client):
    assert client.get("/api/wm/nothing").status_code == 404
    assert client.get("/wm/nothing").status_code == 404


def test_the_plot_is_drawn_by_the_clis_plotting_code(client):
    response = client.get("/plot/roll.svg?expression=2D6")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert b"<svg" in response.content[:400]
    png = client.get("/plot/roll.png?expression=2D6")
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert client.get("/plot/roll.gif?expression=2D6").status_code == 404


HOSTILE = ["-1", "0", "1e309", "nan", "99999999999999999999", "x" * 300, "\u202e\u0000", "%",
           "2D6+", "--help", "1.5", ""]


@pytest.mark.parametrize("command", SERVED, ids=lambda c: c.name)
def test_hostile_values_never_get_a_5xx(client, command):
    """One hostile value per parameter on top of a valid query: a 4xx or an answer."""
    base = dict(cmds.argv_to_query(command, _small(command, list(BASE_ARGS[command.name])),
                                   path_id=_path_id))
    for i, param in enumerate(command.own_params):
        query = dict(base)
        query[param.key] = HOSTILE[i % len(HOSTILE)]
        response = client.get(f"/api/{command.slug}?{urlencode(query)}")
        assert response.status_code < 500 or response.status_code == 503, (
            param.key, query[param.key], response.text[-300:])
        if response.status_code >= 400:
            assert response.json()["error"]


# ------------------------------------------------------------------------- issue 26: stopping
HEAVY_EXACT = ("/api/fb/challenge?model_a=stats:ws=5,s=4,t=4,w=20,i=5,a=10"
               "&model_b=stats:ws=5,s=4,t=4,w=20,i=5,a=10")  # exact, > 20 s on this machine


def test_a_heavy_exact_query_past_its_deadline_frees_its_worker_at_once():
    """The exact engine is a Python loop with no stop check: the watchdog ends it."""
    import time

    with TestClient(create_app(Limits(workers=1, time_limit=1.0))) as c:
        began = time.monotonic()
        response = c.get(HEAVY_EXACT)
        assert response.status_code == 422, response.text
        assert "did not finish within this server's 1 s" in response.json()["error"]
        assert time.monotonic() - began < 3.0
        answered = time.monotonic()
        cheap = c.get("/api/roll?expression=3D5%2B1")  # uncached, and the only worker
        assert cheap.status_code == 200
        assert time.monotonic() - answered < 2.0
        health = c.get("/api/health").json()
        assert health["in_flight"] == 0 and health["stopped_jobs"] == 1


def test_a_stopped_job_is_not_stopped_again_after_it_left():
    """The exception raised into a worker never lands in the next job of that thread."""
    from mathhammer.web.runner import Runner

    runner = Runner(Limits(workers=1, time_limit=0.3))
    try:
        ticket = runner.start(lambda t: sum(i for i in range(10**12)))  # a pure-Python loop
        with pytest.raises(QueryFailed):
            ticket.future.result(5)
        follow = runner.start(lambda t: [time_sleep(0.04) for _ in range(5)] and "done")
        assert follow.future.result(5) == "done"
    finally:
        runner.close()


def time_sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)


def test_a_query_waits_for_a_worker_at_most_queue_wait_then_503():
    import time

    with TestClient(create_app(Limits(workers=1, queue=4, queue_wait=0.5))) as c:
        runner = c.app.state.runner
        release = threading.Event()
        blocker = runner.submit(lambda: release.wait(10))
        try:
            began = time.monotonic()
            response = c.get("/api/roll?expression=2D7")
            assert response.status_code == 503 and response.headers["retry-after"] == "1"
            assert "no worker was free within 0.5 s" in response.json()["error"]
            assert time.monotonic() - began < 2.0
        finally:
            release.set()
            blocker.result(5)
        assert c.get("/api/roll?expression=2D7").status_code == 200  # the dropped one never ran


# ------------------------------------------------------------------------- issue 26: charts
def test_a_chart_with_too_many_outcomes_is_refused_before_it_is_drawn(client):
    import time

    began = time.monotonic()
    response = client.get("/plot/roll.svg?expression=40D100")  # 1,717 outcomes
    assert response.status_code == 422
    assert "outcomes is above this server's limit of 1,000 to draw" in response.text
    assert time.monotonic() - began < 5.0
    assert client.get("/api/roll?expression=40D100").status_code == 200  # the JSON has them


def test_a_chart_waits_in_the_same_queue_and_gets_503_when_it_is_full():
    with TestClient(create_app(Limits(workers=1, queue=0))) as c:
        assert c.get("/api/roll?expression=2D6").status_code == 200  # the answer is cached
        runner = c.app.state.runner
        release = threading.Event()
        blocker = runner.submit(lambda: release.wait(10))
        try:
            response = c.get("/plot/roll.svg?expression=2D6")
            assert response.status_code == 503 and response.headers["retry-after"] == "1"
        finally:
            release.set()
            blocker.result(5)
        assert c.get("/plot/roll.svg?expression=2D6").status_code == 200


def test_the_answer_cache_is_bounded_in_outcomes():
    from mathhammer.web.runner import outcome_points

    with TestClient(create_app(Limits(cache_outcomes=2000))) as c:
        for sides in range(100, 110):
            assert c.get(f"/api/roll?expression=4D{sides}").status_code == 200
        runner = c.app.state.runner
        kept = [outcome for outcome, _ in runner._cache.values()]
        assert sum(1 + outcome_points(o) for o in kept) <= 2000 and len(kept) < 10


# ------------------------------------------------------------------------- issue 26: origin
@pytest.mark.parametrize(("headers", "status"), [
    ({}, 200),  # a script or curl
    ({"origin": "http://testserver"}, 200),  # this server's own page
    ({"origin": "http://evil.example"}, 403),
    ({"origin": "null"}, 403),
    ({"origin": "http://testserver.evil.example"}, 403),
    ({"sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors"}, 403),  # <img src=…>
    ({"sec-fetch-site": "same-site", "sec-fetch-mode": "cors"}, 403),  # another local port
    ({"sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"}, 200),  # a link followed
    ({"sec-fetch-site": "same-origin", "sec-fetch-mode": "cors"}, 200),
])
def test_the_origin_policy(client, headers, status):
    response = client.get("/api/roll?expression=2D6", headers=headers)
    assert response.status_code == status
    assert "access-control-allow-origin" not in response.headers
    if status == 403:
        assert response.json()["error"].startswith("origin: this server answers its own pages")


def test_a_form_posted_from_another_site_is_refused(client):
    response = client.post("/api/roll?expression=2D6", data={"at-least": "7"},
                           headers={"origin": "http://evil.example",
                                    "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"})
    assert response.status_code == 403


# ------------------------------------------------------------------------- issue 26: values
@pytest.mark.parametrize(("query", "line"), [
    ("fb/attack?attacks=1" + "0" * 1500 + "&ws=4&target-ws=4&strength=4&toughness=4",
     "--attacks: holds a number of 1,501 digits (at most 30)"),
    ("fb/attack?attacks=%C2%B2&ws=4&target-ws=4&strength=4&toughness=4",
     "--attacks: must be 1..1000 (got ²)"),
    ("wm/duel?attacker=khador/juggernaut&target=cygnar/ironclad&distance=nan",
     "--distance: must be a finite number (got nan)"),
    ("run?scenario=" + "x" * 300, "SCENARIO: names no bundled file"),
    ("roll?expression=2D6&at-least=" + "9" * 40, "--at-least: has more than 30 digits"),
])
def test_huge_non_finite_and_malformed_numbers_are_one_line_400s(client, query, line):
    response = client.get(f"/api/{query}")
    assert response.status_code == 400, response.text[:300]
    assert response.json()["error"].startswith(line)


def test_a_value_longer_than_the_limit_is_refused(client):
    response = client.get("/api/roll?expression=" + "1" * 2001)
    assert response.status_code == 400
    assert "2,001 characters is above this server's limit of 2,000" in response.json()["error"]


@pytest.mark.parametrize("slug, argv", [  # issue 28: the new questions, from the web page too
    ("wm/duel", ["khador/juggernaut", "cygnar/ironclad", "--focus", "3", "--charge"]),
    ("wm/duel", ["khador/juggernaut", "cygnar/ironclad", "--for-p", "0.5", "--objective",
                 "cripple:M"]),
    ("wm/attack", ["--stat", "6", "--defense", "12", "--power", "19", "--armor", "18",
                   "--for-p", "0.5", "--cripple", "M", "--grid", "cygnar/ironclad"]),
])
def test_issue_28_questions_answer_alike_on_the_web(client, slug, argv):
    command = next(c for c in cmds.query_commands() if c.slug == slug)
    code, out, err = _cli([*command.path, *argv, "--format", "json", "--quiet"])
    assert code == 0, err
    response = client.get(f"/api/{slug}?{_query(command, argv)}")
    assert response.status_code == 200, response.text
    assert response.text == out


def test_the_commands_list_marks_the_question_fields(client):
    """Issue 28 item 16: /api/commands says which parameters a form asks first."""
    described = {c["command"]: c for c in client.get("/api/commands").json()["commands"]}
    for command in cmds.query_commands():
        marked = list(dict.fromkeys(
            p["key"] for p in described[command.name]["params"] if p["question"]))
        assert marked == [p.key for p in command.question_params], command.name
    assert [p["key"] for p in described["fb attack"]["params"] if p["question"]] == [
        "ws", "strength", "target-ws", "toughness", "attacks"]


@pytest.mark.parametrize("path, key", [("/api/fb/battle", "list_b"), ("/api/wm/battle", "list_b"),
                                       ("/api/compare", "list_b")])
def test_a_list_of_your_own_is_uploaded_as_the_list_parameter(client, path, key):
    """Every list parameter takes an uploaded list (fb battle's list B, wm battle's sides and
    compare's second list did not, while the refusal of a path told the user to upload it)."""
    game = "fantasy" if "fb" in path else "warmachine"
    bundled = {"fantasy": ("wfb8_empire", "wfb8_orcs"),
               "warmachine": ("khador_battlebox", "cygnar_battlebox")}[game]
    query = {"list_a": bundled[0], "n-trials": "10", "seed": "1"}
    if "battle" in path:
        query["turns"] = "1"
    body = (profiles_root() / "lists" / f"{bundled[1]}.toml").read_bytes()
    uploaded = client.post(f"{path}?{urlencode(query)}", files={key: ("mine.toml", body)})
    assert uploaded.status_code == 200, uploaded.text
    named = client.get(f"{path}?{urlencode({**query, key: bundled[1]})}")
    assert uploaded.json()["results"] == named.json()["results"]


def test_an_uploaded_deployment_is_named_by_its_own_name_not_the_servers_folder(client):
    """The set-up line names an uploaded deployment as the user's file (it showed the
    server's private upload folder)."""
    text = (ROOT / "profiles" / "examples" / "fb_battle_flank.toml").read_text()
    body = "\n".join(line for line in text.splitlines() if not line.startswith("name ="))
    response = client.post("/api/fb/battle?list_a=wfb8_empire&list_b=wfb8_orcs&n-trials=10"
                           "&seed=1&turns=1", files={"deployment": ("my_flank.toml", body)})
    assert response.status_code == 200, response.text
    setup = response.json()["info"]["set-up"]
    assert "my_flank.toml" in setup and "mathhammer-web-" not in response.text, setup


@pytest.mark.parametrize("deployment", ["nosuch.toml", "pyproject.toml"])
def test_a_battle_files_deployment_is_looked_for_only_where_the_server_may_read(client,
                                                                               deployment):
    """An uploaded battle file naming a deployment: found only among the uploads (a file in
    the server's own folder, pyproject.toml, is as absent as a missing one: no probing), and
    the error names no folder of the server's."""
    body = ('game = "fantasy"\nkind = "battle"\n[battle]\nlist_a = "wfb8_empire"\n'
            f'list_b = "wfb8_orcs"\nturns = 1\nn_trials = 5\ndeployment = "{deployment}"\n')
    response = client.post("/api/run?seed=1", files={"scenario": ("mine.toml", body)})
    assert response.status_code in (400, 422), response.text
    error = response.json()["error"]
    assert f"battle.deployment: is no file beside the scenario file or in the current folder " \
           f"(got {deployment})" in error, error
    assert "mathhammer-web-" not in error and "/tmp" not in error, error


#: text parameters whose help says "file" without reading one (rank and file; a spell given
#: on the command line instead of in a file)
NOT_FILES = {("fb artillery", "facing"), ("fb combat", "target-a"), ("magic phase", "spell")}


def test_every_text_parameter_that_reads_a_file_takes_an_upload():
    """Whether a text parameter takes an upload is marked on its command
    (``query_command(files=...)``), not read from "TOML" in its help: a ruleset file, an
    options file and a profile file were refused as paths and had no upload to offer."""
    import re

    for command in cmds.query_commands():
        for p in command.own_params:
            if p.kind == "str" and re.search(r"\bfile\b|\bTOML\b", p.help, re.I) \
                    and (command.name, p.key) not in NOT_FILES:
                assert p.takes_file, (command.name, p.key)


def test_a_commands_file_marks_name_its_own_parameters():
    for path, command in cmds.walk(cmds.click_root()):
        is_query, _shared, _ask, files = cmds._is_query(command.callback)
        if is_query:
            assert set(files) <= {p.name for p in command.params}, path


RULESET = ROOT / "mathhammer" / "fantasy" / "rules" / "t9a1.toml"
HALBERDIERS = ROOT / "profiles" / "fantasy" / "wfb8" / "empire_halberdiers.toml"


@pytest.mark.parametrize("slug, query, key, path, argv", [
    ("fb/attack", {"ws": "3", "strength": "3", "target-ws": "3", "toughness": "3",
                   "attacks": "10", "method": "exact"}, "ruleset", RULESET,
     ["fb", "attack", "--ws", "3", "--strength", "3", "--target-ws", "3", "--toughness", "3",
      "--attacks", "10", "--method", "exact", "--ruleset", str(RULESET)]),
    ("sweep", {"target": "wfb8/orc_boyz", "vary": "attacker.ws=3..4", "seed": "1"},
     "attacker", HALBERDIERS,
     ["sweep", str(HALBERDIERS), "wfb8/orc_boyz", "--vary", "attacker.ws=3..4", "--seed", "1"]),
])
def test_a_file_of_your_own_is_uploaded_for_a_text_parameter(client, slug, query, key, path,
                                                             argv):
    """An uploaded ruleset or profile gives the answer the CLI gives for the same file (and a
    Fantasy profile file is a Fantasy sweep's attacker: the Warmachine schema refused it)."""
    import json

    code, out, err = _cli([*argv, "--format", "json", "--quiet"])
    response = client.post(f"/api/{slug}?{urlencode(query)}",
                           files={key: (path.name, path.read_bytes())})
    assert code == 0 and response.status_code == 200, (err, response.text)
    assert response.json()["results"] == json.loads(out)["results"]


def test_a_pages_command_line_names_an_uploaded_ruleset_as_your_file(client):
    """The page's "same on the command line" shows YOUR_RULESET.toml for an uploaded ruleset,
    as for an uploaded scenario; it showed --ruleset '(uploaded)', which no shell can run."""
    import html
    import re

    query = {"ws": "3", "strength": "3", "target-ws": "3", "toughness": "3", "attacks": "10",
             "method": "exact"}
    page = client.post(f"/fb/attack?{urlencode(query)}",
                       files={"ruleset": ("house.toml", RULESET.read_bytes())})
    assert page.status_code == 200
    text = html.unescape(page.text)
    lines = [m for m in re.findall(r"mathhammer fb attack[^<]*", text) if "--ruleset" in m]
    assert lines and all("--ruleset YOUR_RULESET.toml" in line for line in lines), lines
