"""`mathhammer serve`'s pages (issue 16 parts 1, 2 and 6), through the framework's client.

Forms are derived from the CLI's parameters, so every query command gets a page with
every option; an answered page leads with the CLI's own headline, links to itself (a
Monte Carlo answer with its seed) and shows the equivalent command line.
"""

from __future__ import annotations

import html
import re
import shlex

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[web]')")

from starlette.testclient import TestClient  # noqa: E402

from mathhammer.web import commands as cmds  # noqa: E402
from mathhammer.web import Limits, create_app  # noqa: E402
from tests.test_reliability_harness import run_inprocess  # noqa: E402


@pytest.fixture(scope="module")
def client():
    # the example links include a whole compare of two lists: no time limit flake under load
    with TestClient(create_app(Limits(time_limit=300))) as c:
        yield c


def _headline(page: str) -> str:
    found = re.search(r'id="headline">([^<]*)<', page)
    assert found, "no headline on the page"
    return html.unescape(found.group(1)).strip()


def _attr(page: str, element_id: str, attr: str = "value") -> str:
    found = re.search(rf'id="{element_id}"[^>]*\b{attr}="([^"]*)"', page)
    assert found, f"no #{element_id}"
    return html.unescape(found.group(1))


def test_the_first_page_lists_every_query_command(client):
    page = client.get("/").text
    for command in cmds.query_commands():
        assert f'href="/{command.slug}"' in page


@pytest.mark.parametrize("command", cmds.query_commands(), ids=lambda c: c.name)
def test_every_command_has_a_form_with_every_option_the_cli_has(client, command):
    response = client.get(f"/{command.slug}")
    assert response.status_code == 200
    page = response.text
    for param in command.own_params + command.engine_params:
        assert f'name="{param.key}"' in page, param.key
    for hidden in ("output", "plot", "threads", "format"):
        assert f'name="{hidden}"' not in page
    assert 'id="headline"' not in page  # no query, no answer
    assert "<meta name=\"viewport\"" in page


def test_an_answer_leads_with_the_clis_headline_and_links_to_itself(client):
    query = ("attacker=khador/juggernaut&target=cygnar/ironclad&focus=3&charge=1&method=mc"
             "&n-trials=20000")
    page = client.get(f"/wm/duel?{query}").text
    link = _attr(page, "answer", "data-link")
    seed = re.search(r"seed=(\d+)", link).group(1)
    code, out, err = run_inprocess(["wm", "duel", "khador/juggernaut", "cygnar/ironclad",
                                  "--focus", "3", "--charge", "--method", "mc", "--n-trials",
                                  "20000", "--seed", seed, "--brief"])
    assert code == 0, err
    assert _headline(page) == out.strip()
    again = client.get(link).text  # the link opened anew: the same answer
    assert _headline(again) == _headline(page)
    line = _attr(page, "cli")
    assert shlex.split(line) == ["mathhammer", "wm", "duel", "khador/juggernaut",
                                 "cygnar/ironclad", "--focus", "3", "--charge", "--method", "mc",
                                 "--n-trials", "20000", "--seed", seed]


def test_the_copied_command_line_gives_the_pages_answer(client):
    page = client.get("/fb/attack?attacks=20&ws=5&target-ws=4&strength=4&toughness=4&save=4"
                      "&ward=6&killing-blow=1&at-least=5").text
    words = shlex.split(_attr(page, "cli"))
    code, out, _ = run_inprocess([*words[1:], "--brief"])
    assert code == 0 and out.strip() == _headline(page)


def test_an_exact_answer_has_no_seed_in_its_link(client):
    page = client.get("/roll?expression=2D6%2B3&at-least=10").text
    assert "seed=" not in _attr(page, "answer", "data-link")
    assert "(exact)" in _headline(page)


def test_every_example_link_answers(client):
    seen = 0
    for command in cmds.query_commands():
        for href in re.findall(r'<li><a href="(/[^"]+)"><code>mathhammer',
                               client.get(f"/{command.slug}").text):
            response = client.get(html.unescape(href))
            assert response.status_code == 200, (href, response.text[-400:])
            assert 'id="headline"' in response.text
            seen += 1
    assert seen >= 10


def test_empty_fields_and_defaults_are_left_out_of_the_link(client):
    page = client.get("/wm/attack?stat=7&defense=12&power=19&armor=18&kind=melee&attacks=1"
                      "&boost-hit=&modifier=0&boxes=&method=auto").text
    assert _attr(page, "answer", "data-link") == "/wm/attack?stat=7&defense=12&power=19&armor=18"


def test_a_multiple_option_takes_one_value_per_line(client):
    page = client.get("/wm/duel?attacker=khador/juggernaut&target=cygnar/stryker"
                      "&then=khador/juggernaut%0D%0Akhador/destroyer&method=mc&n-trials=2000"
                      "&seed=1").text
    assert "then=khador/juggernaut&then=khador/destroyer" in _attr(page, "answer", "data-link")


def test_a_page_with_a_bad_value_shows_the_cli_error_and_keeps_the_form(client):
    response = client.get("/wm/attack?stat=7&defense=0&power=19&armor=18")
    code, _, err = run_inprocess(["wm", "attack", "--stat", "7", "--defense", "0", "--power",
                                  "19", "--armor", "18"])
    assert code == 2 and response.status_code == 400
    assert err.strip() in html.unescape(response.text)
    assert 'value="7"' in response.text  # what was typed stays in the form


def test_pages_send_safe_headers(client):
    headers = client.get("/").headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"


# ---- issue 28 items 16-18: at the table on a phone --------------------------------------------
def _question_fields(page: str) -> list[str]:
    """The names of the fields in the form's "Question" fieldset, in page order."""
    part = page[page.index('<fieldset class="question">'):]
    return list(dict.fromkeys(re.findall(r'\bname="([^"]+)"', part[:part.index("</fieldset>")])))


def test_every_form_asks_the_few_fields_first_and_folds_the_rest():
    """Item 16: required parameters and arguments, then the first options in --help order
    (QUESTION_FIELDS in all); every other field under a closed "More options"."""
    with TestClient(create_app(Limits(time_limit=60))) as client:
        for command in cmds.query_commands():
            page = client.get(f"/{command.slug}").text
            keys = list(dict.fromkeys(p.key for p in command.own_params))
            marked = [k for k in keys if k.replace("-", "_") in command.ask]
            needed = [p.key for p in command.own_params
                      if (p.required or p.positional) and p.key not in marked]
            leading = [k for k in keys if k not in needed][:max(0, cmds.QUESTION_FIELDS - len(needed))]
            question = [k for k in keys if k in needed or k in leading or k in marked]
            assert _question_fields(page) == question, command.name
            assert [p.key for p in command.question_params] == question
            if command.more_params:
                assert re.search(r'<details class="more" id="more">', page), command.name
                more = page[page.index('id="more"'):page.index('id="submit"')]
                for param in command.more_params:
                    assert f'name="{param.key}"' in more, param.key


def test_the_question_fields_alone_answer_the_common_question(client):
    """fb attack: --attacks is required unless --for-p (the parser cannot say so): the
    command marks it, so the form asks it with the rest of the question."""
    command = cmds.find("fb/attack")
    assert [p.key for p in command.question_params] == [
        "ws", "strength", "target-ws", "toughness", "attacks"]
    page = client.get("/fb/attack?ws=4&strength=4&target-ws=4&toughness=4&attacks=10").text
    assert _headline(page)
    assert '<details class="more" id="more">' in page  # nothing folded was needed


def test_more_options_open_when_asked_for_or_named_by_an_error(client):
    ask = "/fb/attack?ws=4&strength=4&target-ws=4&toughness=4&attacks=10"
    page = client.get(ask + "&save=4").text  # --save: folded
    assert '<details class="more" id="more" open>' in page
    response = client.get(ask + "&save=x")
    assert response.status_code == 400 and "--save" in response.text
    assert '<details class="more" id="more" open>' in response.text
    assert re.search(r'class="field bad">\s*<label for="f-save">', response.text)
    # --target is named, --target-ws is not (a flag is a whole word in the error line)
    assert not re.search(r'class="field num bad">\s*<label for="f-target-ws">', response.text)


def test_the_magic_phase_form_asks_spells_without_a_file(client):
    """Item 18: the form of magic phase has the spells, levels and dice fields."""
    page = client.get("/magic/phase").text
    assert re.search(r'<textarea id="f-spell" name="spell"', page)  # one spell per line
    for key in ("level", "dispel-level", "power-dice", "dispel-dice", "ruleset", "dice-rule"):
        assert f'name="{key}"' in page, key
    page = client.get("/magic/phase?spell=Fireball:8%0D%0AHex:11&level=2&dispel-level=1"
                      "&method=exact").text
    assert _headline(page).startswith("Each spell goes off: Fireball ")
    assert shlex.split(_attr(page, "cli")) == [
        "mathhammer", "magic", "phase", "--spell", "Fireball:8", "--spell", "Hex:11",
        "--level", "2", "--dispel-level", "1", "--method", "exact"]
    code, out, _ = run_inprocess(shlex.split(_attr(page, "cli"))[1:] + ["--brief"])
    assert code == 0 and out.strip() == _headline(page)


def test_score_shows_its_per_unit_figures_as_a_table(client):
    """Item 17: score's points by unit are a table (row names in the sticky column)."""
    page = client.get("/score?army=khador_two_juggernauts&meta=mk2_khador_mirror&model=cells").text
    assert 'id="headline"' in page
    table = page[page.index('<table class="matrix">'):]
    table = table[:table.index("</table>")]
    units = re.findall(r"<code>points_destroyed_per_turn\[([^\]]+)\]</code></td>"
                       r'<td class="num">([0-9.]+)</td>', page)  # the flat results list
    assert len(units) >= 2
    rows = re.findall(r'<tr><th scope="row">([^<]+)</th><td class="num">([0-9.]+)</td>', table)
    assert rows == [(unit, f"{float(value):.2f}") for unit, value in units]
    assert "points_<wbr>destroyed_<wbr>per_<wbr>turn" in table
    assert '<pre class="own"' not in page
