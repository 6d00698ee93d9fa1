"""The HTML report in a real headless Chromium (system package, installed by .ci/run): every
figure loads and the page logs no error. A deliberately broken page shows the check bites."""

from __future__ import annotations

import pytest
from browser import find_chromium, load_page

import cli


def test_chromium_is_installed():
    assert find_chromium(), (
        "The report's browser test needs Chromium: apt-get install chromium (as .ci/run does), "
        "or set LOBA_CHROMIUM to a Chromium binary."
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    base = tmp_path_factory.mktemp("browser")
    for name, extra in (("a", []), ("b", ["--set", "elimination_score=151"])):
        code = cli.main(
            ["simulate", "--games", "200", "--seed", "4", "--seats", "greedy,greedy,random",
             "--quiet", "--out", str(base / name), *extra]
        )  # fmt: skip
        assert code == 0
    out = base / "report.html"
    assert cli.main(["report", str(base / "a"), str(base / "b"), "-o", str(out)]) == 0
    return out


def test_report_loads_every_figure_without_console_errors(report):
    page = load_page(report)
    assert page.title.startswith("Loba de Menos: loba:pagat vs")
    assert len(page.images) >= 5
    assert page.broken_images == []
    assert all(i["width"] > 100 and i["height"] > 100 for i in page.images)
    assert page.errors == []


def test_the_browser_check_sees_a_broken_page(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text(
        "<!DOCTYPE html><html><head><title>bad</title></head><body>"
        '<img alt="missing" src="missing.png"><img alt="corrupt" src="data:image/png;base64,AAAA">'
        "<script>console.error('boom'); notAFunction();</script></body></html>"
    )
    page = load_page(bad)
    assert [i["alt"] for i in page.broken_images] == ["missing", "corrupt"]
    text = "\n".join(page.errors)
    assert "missing.png" in text and "boom" in text and "notAFunction" in text


def test_an_advise_report_loads_every_figure(tmp_path):
    from analysis import advise as A

    A.advise(["rounds_per_game in 30..40", "comeback >= 0.15"], vary=["elimination_score=61..121"],
             budget=2400, seed=1, out=tmp_path / "adv")  # fmt: skip  (conflicting: front.png too)
    out = tmp_path / "advice.html"
    assert cli.main(["report", str(tmp_path / "adv"), "-o", str(out)]) == 0
    page = load_page(out)
    assert page.title.startswith("House-rules advice")
    assert len(page.images) == 2 and page.broken_images == [] and page.errors == []
