"""The HTML report in a real browser: headless Chromium (Debian packages chromium and
chromium-driver, driven by selenium) loads the report, steps through it with the keyboard and the
mouse, and the DOM is asserted on; a screenshot of each view is kept for review
(`TLACHECK_SCREENSHOTS=DIR` keeps them in DIR; docs/rendering.md shows them). Skipped, with the
reason, where Chromium, its driver or selenium is missing; `.ci/run` installs them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tlacheck.app.cli import main
from tests.conftest import ROOT

NOTIFY = "specs/notify_race.spec"
FORK = "specs/fork_teammate.spec"


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    for program in ("chromium", "chromedriver"):
        if shutil.which(program) is None:
            return f"{program} is not installed (Debian: apt-get install chromium chromium-driver)"
    return None


pytestmark = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    yield driver
    driver.quit()


# one actor (no `by`, no Actor_Step names): one lane
COUNTER = ("spec Counter\nvar count: int = 0\nvar history: seq[int] = []\n\naction Increment:\n"
           "    require count < 4\n    count = count + 1\n    history = history + [count * 1000001]\n\n"
           "invariant Small: count < 4\n")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    counter = out / "counter.spec"
    counter.write_text(COUNTER, encoding="utf-8")
    made = {}
    for name, args in (("notify", ["check", NOTIFY]), ("fork", ["check", FORK]), ("verify", ["verify", NOTIFY]),
                       ("counter", ["check", str(counter)])):
        path = out / f"{name}.html"
        main(args + ["--html", str(path)] + (["--quiet"] if args[0] == "check" else []))
        assert path.is_file()
        made[name] = path.as_uri()
    return made


def shot(driver, name: str, tmp_path: Path, height: int | None = None) -> Path:
    """A screenshot of the window (`height`: of a window that tall, for more of the page)."""
    folder = Path(os.environ.get("TLACHECK_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    size = driver.get_window_size()
    if height:
        driver.set_window_size(size["width"], height)
    try:
        assert driver.save_screenshot(str(path))
    finally:
        if height:
            driver.set_window_size(size["width"], size["height"])
    assert path.stat().st_size > 10_000  # a picture, not an empty page
    return path


def cursor(driver, viewer: int = 0) -> dict:
    """What the page shows as current in one viewer: the cursor text, the current row, box and
    state panel, the highlighted source lines and the bar's label."""
    return driver.execute_script("""
        const v = document.querySelectorAll('section.viewer')[arguments[0]];
        const steps = sel => Array.from(v.querySelectorAll(sel + '.current')).map(e => +e.dataset.state);
        const lines = cls => Array.from(v.querySelectorAll('pre.source .line.' + cls)).map(e => +e.dataset.line);
        return {cursor: +v.querySelector('.cursor').textContent, rows: steps('tr'), boxes: steps('g.box'),
                panels: steps('dl.state'), action: lines('action'), guards: lines('guard'),
                flash: lines('flash'), now: v.querySelector('.now').textContent, hash: location.hash};
    """, viewer)


def press(driver, *keys):
    from selenium.webdriver.common.action_chains import ActionChains

    chain = ActionChains(driver)
    for k in keys:
        chain.send_keys(k)
    chain.perform()


def test_keyboard_steps_one_cursor_through_every_view(browser, pages, tmp_path):
    from selenium.webdriver.common.keys import Keys

    browser.get(pages["notify"])
    n = int(browser.execute_script("return +document.querySelector('section.viewer').dataset.states"))
    assert n == 10
    now = cursor(browser)
    assert now["cursor"] == 1 and now["rows"] == now["boxes"] == now["panels"] == [1]
    assert now["action"] == [] and now["now"] == "initial state"
    shot(browser, "notify-race-initial", tmp_path)
    press(browser, *[Keys.ARROW_RIGHT] * 5)
    now = cursor(browser)
    assert now["cursor"] == 6 and now["rows"] == now["boxes"] == now["panels"] == [6]
    source = (ROOT / NOTIFY).read_text(encoding="utf-8").splitlines()
    assert source[now["action"][0] - 1].startswith("action SendDone")
    assert now["guards"] and all(source[g - 1].strip().startswith("require") for g in now["guards"])
    assert set(now["guards"]) <= set(now["action"])
    assert now["now"].startswith("SendDone") and now["hash"] == "#v0-s6"  # state 6, as the cursor says
    # the highlighted action is scrolled into the source pane's view
    visible = browser.execute_script("""
        const pre = document.querySelector('pre.source');
        const line = pre.querySelector('.line.action');
        const a = line.getBoundingClientRect(), b = pre.getBoundingClientRect();
        return a.top >= b.top && a.bottom <= b.bottom;""")
    assert visible
    shot(browser, "notify-race-state6", tmp_path, height=1700)
    press(browser, "k", "k")
    assert cursor(browser)["cursor"] == 4
    press(browser, Keys.END)
    now = cursor(browser)
    assert now["cursor"] == n and now["rows"] == [n]
    checked = browser.execute_script(
        "return Array.from(document.querySelectorAll('pre.source .line.shown')).map(e => e.textContent)")
    assert len(checked) == 1 and "invariant AnswerNotified" in checked[0]
    press(browser, Keys.ARROW_RIGHT)  # past the end: stays on the last state
    assert cursor(browser)["cursor"] == n
    press(browser, Keys.HOME)
    assert cursor(browser)["cursor"] == 1


def test_clicking_a_row_a_box_or_a_button_moves_the_cursor(browser, pages):
    from selenium.webdriver.common.by import By

    browser.get(pages["notify"])
    browser.find_element(By.CSS_SELECTOR, "tr[data-state='4']").click()
    assert cursor(browser)["cursor"] == 4
    browser.execute_script("document.querySelector(\"g.box[data-state='8'] rect\")"
                           ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    assert cursor(browser)["boxes"] == [8] and cursor(browser)["cursor"] == 8
    browser.find_element(By.CSS_SELECTOR, "button[data-move='prev']").click()
    assert cursor(browser)["cursor"] == 7
    browser.find_element(By.CSS_SELECTOR, "button[data-move='last']").click()
    assert cursor(browser)["cursor"] == 10


def test_a_link_to_a_step_opens_the_report_there(browser, pages):
    browser.get(pages["notify"] + "#v0-s8")
    now = cursor(browser)
    assert now["cursor"] == 8 and now["rows"] == [8] and now["now"].startswith("EnqueueStopNotification")


def test_verify_report_shows_the_step_and_guard_a_fix_blocks(browser, pages, tmp_path):
    from selenium.webdriver.common.by import By

    browser.get(pages["verify"])
    shot(browser, "notify-race-verify", tmp_path)
    link = browser.find_element(By.CSS_SELECTOR, "a[data-guard]")
    viewer, number = (int(x) for x in link.get_attribute("data-goto").split(":"))
    guard = int(link.get_attribute("data-guard"))
    assert link.text == f"show state {number} of the base counterexample"
    link.click()
    now = cursor(browser, viewer)
    assert now["cursor"] == number and now["rows"] == [number] and now["flash"] == [guard]
    assert now["hash"] == f"#v{viewer}-s{number}"
    notes = browser.execute_script("return document.querySelectorAll('section.viewer')[arguments[0]]"
                                   ".querySelector('.notes').textContent", viewer)
    assert "blocks this step" in notes and f":{guard})" in notes
    shot(browser, "notify-race-verify-blocked", tmp_path, height=1700)


def test_the_fork_teammate_seed(browser, pages, tmp_path):
    from selenium.webdriver.common.keys import Keys

    browser.get(pages["fork"])
    lanes = browser.execute_script(
        "return Array.from(document.querySelectorAll('.lane-head text')).map(e => e.textContent)")
    assert lanes == ["Lead", "Teammate", "TeammatesSubagent"]
    press(browser, Keys.END)
    now = cursor(browser)
    assert now["now"].startswith("TeammateDispatches(") and now["guards"]
    shot(browser, "fork-teammate", tmp_path, height=1300)


def test_legible_on_a_phone_and_in_print(browser, pages, tmp_path):
    browser.set_window_size(390, 844)
    try:
        browser.get(pages["notify"])
        layout = browser.execute_script("""
            const panes = getComputedStyle(document.querySelector('.panes')).gridTemplateColumns.split(' ');
            return {tracks: panes.length, page: document.documentElement.scrollWidth,
                    width: window.innerWidth,
                    lanes: document.querySelector('.lanes-wrap').scrollWidth >
                           document.querySelector('.lanes-wrap').clientWidth};""")
        assert layout["tracks"] == 1  # one column
        assert layout["page"] <= layout["width"]  # the page itself does not scroll sideways ...
        assert layout["lanes"]  # ... the swimlanes do, inside their frame, at full size
        shot(browser, "notify-race-phone", tmp_path)
    finally:
        browser.set_window_size(1400, 1000)
    browser.get(pages["notify"])
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        printed = browser.execute_script("""
            return {controls: getComputedStyle(document.querySelector('.controls')).display,
                    rows: Array.from(document.querySelectorAll('tr[data-state]'))
                               .filter(r => r.getBoundingClientRect().height > 0).length};""")
        assert printed == {"controls": "none", "rows": 10}
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})


def test_issue_32_a_single_lane_report_uses_the_width_of_the_window(browser, pages, tmp_path):
    """Issue 32 item 6: the swimlanes of a spec with one actor took a quarter of the width, the
    other three quarters of their frame empty and the table pushed below. Now the table, the
    state and the source stand beside narrow swimlanes; wide ones still span the page above them."""
    browser.get(pages["counter"])
    layout = browser.execute_script("""
        const box = sel => document.querySelector(sel).getBoundingClientRect();
        const lanes = box('.lanes-wrap'), panes = box('.panes'), page = document.documentElement.clientWidth;
        return {lanes: [lanes.left, lanes.right, lanes.top], panes: [panes.left, panes.right, panes.top],
                page: page, lines: document.querySelectorAll('.lane-head').length};""")
    assert layout["lines"] == 1
    (l_left, l_right, l_top), (p_left, p_right, p_top) = layout["lanes"], layout["panes"]
    assert p_left > l_right and abs(p_top - l_top) < 2  # beside the lanes, level with them
    assert p_right - l_left > 0.9 * layout["page"]  # together they span the page
    shot(browser, "single-lane", tmp_path)
    browser.get(pages["notify"])  # four lanes: the swimlanes span the page, the panes below
    wide = browser.execute_script("""
        const lanes = document.querySelector('.lanes-wrap').getBoundingClientRect();
        const panes = document.querySelector('.panes').getBoundingClientRect();
        return panes.top >= lanes.bottom && lanes.width > 0.9 * document.documentElement.clientWidth;""")
    assert wide


BROKEN_WORDS = """
    const broken = [];
    document.querySelectorAll('td.act').forEach(td => {
      const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        for (const m of n.data.matchAll(/[A-Za-z0-9_]+/g)) {
          const r = document.createRange();
          r.setStart(n, m.index);
          r.setEnd(n, m.index + m[0].length);
          const lines = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
          if (lines.size > 1) { broken.push(m[0]); }  // the word's pieces lie on two lines
        }
      }
    });
    return broken;"""


@pytest.mark.parametrize("width", [1400, 1000, 390])
def test_issue_32_the_table_never_breaks_a_name_in_the_middle(browser, pages, width):
    """Issue 32 item 6: the table's step column broke `EnqueueStopNotification` (and on narrower
    windows `TeammateDispatches`, `runInBackground`) in the middle. The column is now as wide as
    its longest name; a label breaks only after `(`, `=` and commas."""
    browser.set_window_size(width, 1000)
    try:
        for name in ("notify", "fork"):
            browser.get(pages[name])
            assert browser.execute_script("return document.querySelectorAll('td.act').length") >= 3
            assert browser.execute_script(BROKEN_WORDS) == [], (name, width)
            assert browser.execute_script("return document.documentElement.scrollWidth") <= width
    finally:
        browser.set_window_size(1400, 1000)
