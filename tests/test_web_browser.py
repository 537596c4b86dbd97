"""`mathhammer serve` in a real browser: Debian's headless Chromium driven by Playwright.

Fill the duel form, submit, read the headline; open the page's shared link in another
tab and get the same answer; a bad value shows the CLI's error line; the page fits a
390 px phone. Screenshots at 1280 px and 390 px are saved under
``build/test-artifacts/web/`` (look at them).

Needs Chromium at /usr/bin/chromium (``apt-get install -y chromium``; ``make test``
installs it when it can) and the pip ``playwright`` package, which is pointed at that
browser (Playwright never downloads one here). Without either the tests skip and
say why.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.test_reliability_harness import run_inprocess

CHROMIUM = os.environ.get("MATHHAMMER_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "build" / "test-artifacts" / "web"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: the pip package playwright is not "
    "installed (pip install -e '.[test]')")
if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
    pytest.skip(f"browser tests skipped: no Chromium at {CHROMIUM} (install Debian's "
                "package: apt-get install -y chromium; make test does this as root)",
                allow_module_level=True)
pytest.importorskip("uvicorn", reason="browser tests skipped: the web extra is not installed")

from tests.web_server import Server  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with Server("--no-warm") as running:
        yield running


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    profile = tmp_path_factory.mktemp("chromium-profile")  # a fresh user-data dir
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=ARGS,
            viewport={"width": 1280, "height": 900})
        context.set_default_timeout(60_000)
        yield context
        context.close()


def _shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def test_duel_form_answer_and_shared_link(server, browser):
    page = browser.new_page()
    page.goto(server.url + "/wm/duel")
    page.fill("#f-attacker", "khador/juggernaut")
    page.fill("#f-target", "cygnar/ironclad")
    page.fill("#f-focus", "3")
    page.check("#f-charge")
    page.click("text=Engine: exact or Monte Carlo")
    page.select_option("#f-method", "mc")  # the duel is exact by default: ask for a seeded run
    page.fill("#f-n-trials", "20000")
    page.click("#submit")
    page.wait_for_selector("#headline")
    headline = page.inner_text("#headline")
    assert headline.startswith("Juggernaut destroys Ironclad: ")
    seed = re.search(r"seed=(\d+)", page.url).group(1)  # the address bar holds the seed
    assert f"seed {seed}" in headline
    assert "file=" not in page.url and "boost-hit" not in page.url  # empty fields left out
    code, out, _ = run_inprocess(["wm", "duel", "khador/juggernaut", "cygnar/ironclad",
                                  "--focus", "3", "--charge", "--method", "mc", "--n-trials",
                                  "20000", "--seed", seed, "--brief"])
    assert code == 0 and out.strip() == headline
    assert page.input_value("#cli").startswith("mathhammer wm duel khador/juggernaut")
    page.wait_for_load_state("networkidle")  # the chart
    shot = _shot(page, "duel-1280")
    assert shot.stat().st_size > 20_000

    link = page.input_value("#share")
    assert link.startswith(server.url + "/wm/duel?")
    other = browser.new_page()  # another tab
    other.goto(link)
    assert other.inner_text("#headline") == headline
    other.close()
    page.close()


def test_the_answer_fits_a_phone(server, browser):
    page = browser.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server.url + "/wm/duel?attacker=khador/juggernaut&target=cygnar/ironclad"
                           "&focus=3&charge=1&n-trials=20000&seed=1")
    page.wait_for_selector("#headline")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    font = page.evaluate("parseFloat(getComputedStyle(document.getElementById('headline'))"
                         ".fontSize)")
    assert font >= 16
    _shot(page, "duel-390")
    page.goto(server.url + "/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    _shot(page, "index-390")
    page.close()


def test_a_bad_value_shows_the_clis_error(server, browser):
    page = browser.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server.url + "/wm/duel")
    page.fill("#f-attacker", "khador/juggernaut")
    page.fill("#f-target", "cygnar/ironclad")
    page.fill("#f-focus", "4")
    page.click("#submit")
    page.wait_for_selector("#error")
    code, _, err = run_inprocess(["wm", "duel", "khador/juggernaut", "cygnar/ironclad",
                                  "--focus", "4"])
    assert code == 2
    assert page.inner_text("#error") == err.strip()
    assert page.input_value("#f-focus") == "4"  # the form keeps what was typed
    _shot(page, "duel-error-390")
    page.close()


def test_copy_cli_command_button(server, browser):
    page = browser.new_page()
    page.goto(server.url + "/roll?expression=2D6%2B3&at-least=10")
    page.click("button[data-copy=cli]")
    page.wait_for_function("document.querySelector('button[data-copy=cli]').textContent"
                           " === 'copied'")
    assert page.input_value("#cli") == "mathhammer roll 2D6+3 --at-least 10"
    page.close()


# ---- issue 28 items 16-18: at the table on a phone -------------------------------------------
PHONE = {"width": 390, "height": 844}


def _box(page, selector: str) -> dict:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box


def _first_screen(page, selector: str) -> None:
    """``selector`` lies wholly within the first 390 x 844 screen (page not scrolled)."""
    assert page.evaluate("window.scrollY") == 0
    box = _box(page, selector)
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (selector, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (selector, box)


def test_every_form_has_its_answer_button_on_the_first_phone_screen(server, browser):
    """Item 16: each command's form shows the few fields a question needs, the rest folded
    under "more options", so that the Answer button is on the first screen of a phone."""
    from mathhammer.web import commands as cmds

    page = browser.new_page()
    page.set_viewport_size(PHONE)
    for command in cmds.query_commands():
        page.goto(f"{server.url}/{command.slug}")
        _first_screen(page, "#submit")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], command.name
        for param in command.question_params:  # shown, not folded
            assert page.locator(f"[name='{param.key}']").first.is_visible(), param.key
        if command.more_params:
            assert not page.locator("#more").evaluate("d => d.open")
            assert not page.locator(f"[name='{command.more_params[0].key}']").first.is_visible()
        if command.name in ("wm duel", "fb attack", "magic phase", "fb turn"):
            page.screenshot(path=str(_artifact(f"form-{command.slug.replace('/', '-')}-390")))
    page.close()


def _artifact(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{name}.png"


def test_a_magic_phase_asked_from_the_form_on_a_phone(server, browser):
    """Items 16 and 18: spells, levels and dice typed into the form (no file), the answer's
    headline on the first screen, the same as the command line's."""
    page = browser.new_page()
    page.set_viewport_size(PHONE)
    page.goto(server.url + "/magic/phase")
    page.fill("#f-spell", "Fireball:8\nHex:11\nBurning blade:4:bound")
    page.fill("#f-level", "2")
    page.fill("#f-dispel-level", "1")
    page.click("text=Engine: exact or Monte Carlo")
    page.fill("#f-n-trials", "20000")
    page.click("#submit")
    page.wait_for_selector("#headline")
    _first_screen(page, "#headline")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(_artifact("magic-phase-answer-390")))
    seed = re.search(r"seed=(\d+)", page.url).group(1)
    code, out, err = run_inprocess(["magic", "phase", "--spell", "Fireball:8", "--spell", "Hex:11",
                                    "--spell", "Burning blade:4:bound", "--level", "2",
                                    "--dispel-level", "1", "--n-trials", "20000", "--seed", seed,
                                    "--brief"])
    assert code == 0, err
    assert page.inner_text("#headline") == out.strip()
    assert out.startswith("Each spell goes off: Fireball ")
    assert page.input_value("#cli").startswith("mathhammer magic phase --spell Fireball:8 --spell")
    page.close()


def test_game_turns_asked_from_the_form_on_a_phone(server, browser):
    """Items 14 and 18: units, distance, reaction and turns typed into the form (no file),
    the answer's headline on the first screen, the same as the command line's."""
    page = browser.new_page()
    page.set_viewport_size(PHONE)
    page.goto(server.url + "/fb/turn")
    for key in ("unit-a", "unit-b", "distance", "reaction", "turns"):  # the question's fields
        assert page.locator(f"#f-{key}").is_visible(), key
    page.fill("#f-unit-a", "wfb8/knights_of_the_realm")
    page.fill("#f-unit-b", "wfb8/orc_boyz")
    page.fill("#f-distance", "12")
    page.fill("#f-reaction", "flee")
    page.fill("#f-turns", "2")
    page.screenshot(path=str(_artifact("form-fb-turn-filled-390")))
    page.click("text=Engine: exact or Monte Carlo")
    page.fill("#f-n-trials", "20000")
    page.click("#submit")
    page.wait_for_selector("#headline")
    _first_screen(page, "#headline")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(_artifact("fb-turn-answer-390")))
    seed = re.search(r"seed=(\d+)", page.url).group(1)
    code, out, err = run_inprocess(["fb", "turn", "--unit-a", "wfb8/knights_of_the_realm",
                                    "--unit-b", "wfb8/orc_boyz", "--distance", "12",
                                    "--reaction", "flee", "--turns", "2", "--n-trials", "20000",
                                    "--seed", seed, "--brief"])
    assert code == 0, err
    assert page.inner_text("#headline") == out.strip()
    assert out.startswith("After 2 game turns, Orc Boyz: destroyed ")
    assert page.input_value("#cli").startswith(
        "mathhammer fb turn --unit-a wfb8/knights_of_the_realm --unit-b wfb8/orc_boyz")
    assert page.locator("table.matrix").count() == 2  # each unit's statuses by turn
    page.close()


def _matrices_fit(page, name: str) -> int:
    """Every grid scrolls inside its own box, its first column stays put; the page itself
    never scrolls sideways. Returns the number of grids."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.locator("pre.own:visible").count() == 0  # no wide text block on show
    boxes = page.locator(".matrix-box")
    for i in range(boxes.count()):
        box = boxes.nth(i)
        assert box.evaluate("b => getComputedStyle(b).overflowX") == "auto"
        assert box.bounding_box()["width"] <= PHONE["width"]
        label = box.locator("tbody th[scope=row]").first
        before = label.bounding_box()["x"]
        box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
        assert abs(label.bounding_box()["x"] - before) < 1  # sticky: the row names stay
    page.screenshot(path=str(_artifact(name)), full_page=True)
    return boxes.count()


def test_matrices_are_tables_that_scroll_in_their_own_box_on_a_phone(server, browser):
    """Item 17: fb turn's statuses by turn and compare's matrices as tables at 390 px."""
    page = browser.new_page()
    page.set_viewport_size(PHONE)
    page.goto(server.url + "/fb/turn?scenario=scenarios/fantasy_turns_knights_vs_orcs"
                           "&n-trials=2000&seed=1")
    page.wait_for_selector("#headline")
    _first_screen(page, "#headline")
    assert _matrices_fit(page, "fb-turn-390") == 2  # one grid per unit
    first = page.locator("table.matrix").first
    assert first.locator("tbody th[scope=row]").all_inner_texts() == ["turn 1", "turn 2", "turn 3"]
    assert "p_destroyed" in first.locator("thead").inner_text().replace("\n", "")
    assert "±" in first.locator("tbody").inner_text()  # Monte Carlo cells carry their se

    page.goto(server.url + "/compare?list_a=khador_battlebox&list_b=cygnar_battlebox&one-way=1"
                           "&targets=Ironclad,Charger")
    page.wait_for_selector("#headline")
    _first_screen(page, "#headline")
    assert _matrices_fit(page, "compare-390") == 4  # P(kill), damage, both per 100 points
    first = page.locator("table.matrix").first
    assert first.locator("tbody th[scope=row]").all_inner_texts() == [
        "Kommander Sorscha", "Juggernaut", "Destroyer"]
    page.close()


def teardown_module(module):
    # keep the artefacts, drop Chromium's crash reports if any were written beside them
    shutil.rmtree(ARTIFACTS / "Crashpad", ignore_errors=True)
