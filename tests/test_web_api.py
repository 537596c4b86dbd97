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
    ("wm/attack", "stat=7&defense=12&power=19&armor=18&bogus=1",
     ["wm", "attack", "--stat", "7", "--defense", "12", "--power", "19", "--armor", "18",
      "--bogus", "1"]),
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


# ------------------------------------------------------------------------- caps
def test_too_many_trials_is_a_422_naming_the_cap(client):
    response = client.get("/api/roll?expression=2D6&method=mc&n-trials=10000001")
    assert response.status_code == 422
    assert "above this server's limit of 10,000,000 trials" in response.json()["error"]


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
    from mathhammer.web.runner import QueryFailed, Runner

    runner = Runner(Limits(time_limit=60))
    timer = threading.Timer(0.3, runner.stopping.set)
    timer.start()
    try:
        with pytest.raises(QueryFailed) as failed:
            runner.run(["wm", "duel", "khador/juggernaut", "cygnar/ironclad", "--quiet",
                        "--method=mc", "--n-trials=10000000", "--seed=1", "--threads=1"])
        assert failed.value.status == 503 and "shutting down" in failed.value.line
    finally:
        timer.cancel()
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
