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
