#!/usr/bin/env python3
"""Searches a built site that has a Pagefind index, in headless Chromium, as a reader would.

Usage: check_search.py SITE_FOLDER SCREENSHOT_FOLDER [CASE...]
       check_search.py SITE_FOLDER SCREENSHOT_FOLDER --hidden [PATH...]

The site is served over HTTP from a local server that sends the headers of the site's own
`_headers` file (the Content Security Policy among them), as a host that reads it would. Each case
is `PATH|QUERY|EXPECTED|FOLDER`: the page at PATH is opened, QUERY typed into the header's
search box, and the results must hold a link to the page EXPECTED (a path from the site's root)
and only links to pages in FOLDER (`en/`), or, for `!en/`, none to a page in it (the default
language's pages are at the root, beside the other languages' folders). Each case runs at 390 px
(a phone) and 1280 px (a desktop), and a screenshot of the results is saved as
`search-<n>-<width>.png`. A page fails
when the box does not show, the results are wrong, the page or the results scroll sideways, a
request fails or answers 4xx/5xx, or the console reports an error (a refused script, say).

With --hidden, the site has no index yet: each page (the home pages by default) must ask for
the index's entry, get its 404, and keep the box hidden, with no other failed request and no
other console error.

Prints one JSON object; exits 1 when any case has a problem, 2 when the browser cannot start.
"""
import functools
import http.server
import json
import os
import sys
import threading
import time
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_site import failed_requests  # noqa: E402

WIDTHS = [(390, 844), (1280, 900)]

DEFAULT_CASES = [
    "|якорем|guides/anchoring/|!en/",
    "|якоря|guides/anchoring/|!en/",
    "checklists/check-in/|якорь|guides/anchoring/|!en/",
    "en/|anchoring|en/guides/anchoring/|en/",
]

# The box's state, its results and what overflows. `href` is resolved by the browser.
STATE = """
const box = document.querySelector('.site-search');
const input = box && box.querySelector('input.pagefind-ui__search-input');
const message = box && box.querySelector('.pagefind-ui__message');
const drawer = box && box.querySelector('.pagefind-ui__drawer');
const rect = drawer ? drawer.getBoundingClientRect() : null;
const links = box ? Array.from(box.querySelectorAll('.pagefind-ui__result-title a.pagefind-ui__result-link')) : [];
return {
  shown: !!(box && !box.hidden && input && input.getBoundingClientRect().width > 0),
  message: message ? message.textContent.trim() : null,
  results: links.map(a => ({href: a.href, title: a.textContent.trim()})),
  drawer: rect ? {left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom} : null,
  scrollWidth: document.documentElement.scrollWidth,
  innerWidth: window.innerWidth,
};
"""


def read_headers(site):
    """The rules of `_headers`: (pattern, [(name, value)]), in order."""
    rules = []
    path = os.path.join(site, "_headers")
    if not os.path.exists(path):
        return rules
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if not line[0].isspace():
                rules.append((line.strip(), []))
            elif rules and ":" in line:
                name, value = line.strip().split(":", 1)
                rules[-1][1].append((name.strip(), value.strip()))
    return rules


def matches(pattern, path):
    """Cloudflare Pages' reading: an exact path, or a prefix ending in `/*`."""
    if pattern.endswith("*"):
        return path.startswith(pattern[:-1])
    return path == pattern


class HeadersHandler(http.server.SimpleHTTPRequestHandler):
    rules = []

    def end_headers(self):
        path = urllib.parse.urlsplit(self.path).path
        for pattern, headers in self.rules:
            if matches(pattern, path):
                for name, value in headers:
                    self.send_header(name, value)
        super().end_headers()

    def log_message(self, *args):
        pass


def wait_for(driver, predicate, seconds):
    """Polls STATE until `predicate` holds or time is up; returns the last state."""
    deadline = time.monotonic() + seconds
    state = driver.execute_script(STATE)
    while not predicate(state) and time.monotonic() < deadline:
        time.sleep(0.1)
        state = driver.execute_script(STATE)
    return state


def check_hidden(driver, base, pages, problems, results):
    """Each page asks for the index's entry, gets 404, and keeps the box hidden."""
    probe = base + "pagefind/pagefind-entry.json"
    driver.set_window_size(*WIDTHS[0])
    for page in pages:
        driver.get_log("performance")
        driver.get_log("browser")
        driver.get(base + page)
        deadline = time.monotonic() + 10
        asked = False
        while not asked and time.monotonic() < deadline:
            asked = driver.execute_script("return performance.getEntriesByName(arguments[0]).length > 0", probe)
            time.sleep(0.1)
        time.sleep(0.3)  # what the script does with the answer
        state = driver.execute_script(STATE)
        where = page or "/"
        if not asked:
            problems.append("%s: the page did not ask for the search index" % where)
        if state["shown"]:
            problems.append("%s: the search box shows without an index" % where)
        for failure in failed_requests(driver.get_log("performance")):
            if failure != probe + " (404)":
                problems.append("%s: failed request %s" % (where, failure))
        for entry in driver.get_log("browser"):
            if entry["level"] == "SEVERE" and probe not in entry["message"]:
                problems.append("%s: console error: %s" % (where, entry["message"]))
        results.append({"case": where, "asked": asked, **state})


def main():
    site, shots = sys.argv[1], sys.argv[2]
    hidden = sys.argv[3:4] == ["--hidden"]
    cases = [case.split("|") for case in (sys.argv[3:] or DEFAULT_CASES)] if not hidden else []
    os.makedirs(shots, exist_ok=True)
    handler = functools.partial(type("Handler", (HeadersHandler,), {"rules": read_headers(site)}), directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % server.server_address[1]

    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--hide-scrollbars", "--force-device-scale-factor=1", "--lang=en-US"):
        options.add_argument(argument)
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    try:
        driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")),
                                  options=options)
    except Exception as error:  # noqa: BLE001 - report any start failure
        print(json.dumps({"error": "cannot start Chromium: %s" % error}))
        return 2

    results, problems = [], []
    try:
        if hidden:
            check_hidden(driver, base, sys.argv[4:] or ["", "en/"], problems, results)
        for width, height in WIDTHS if not hidden else []:
            driver.set_window_size(width, height)
            for number, (page, query, expected, folder) in enumerate(cases, 1):
                where = "%s «%s» at %d px" % (page or "/", query, width)
                driver.get_log("performance")
                driver.get_log("browser")
                driver.get(base + page)
                state = wait_for(driver, lambda s: s["shown"], 10)
                if not state["shown"]:
                    problems.append("%s: the search box did not show" % where)
                    results.append({"case": where, **state})
                    continue
                box = driver.find_element("css selector", ".site-search input.pagefind-ui__search-input")
                box.click()
                box.send_keys(query)
                # Done when the message names the query and is not the "searching" one, which
                # ends in an ellipsis, and the results are listed with their titles (each loads
                # its page's fragment after the count is known).
                state = wait_for(
                    driver, lambda s: s["message"] and query in s["message"] and not s["message"].endswith("…")
                    and s["results"] and all(r["title"] for r in s["results"]), 15)
                # The list grows as fragments arrive: read it once it has stopped growing.
                for _ in range(20):
                    time.sleep(0.25)
                    settled = driver.execute_script(STATE)
                    if len(settled["results"]) == len(state["results"]):
                        break
                    state = settled
                paths = [urllib.parse.urlsplit(r["href"]).path for r in state["results"]]
                wanted = "/" + expected
                if wanted not in paths:
                    problems.append("%s: no result links to %s (results: %s; message: %s)" % (
                        where, wanted, paths, state["message"]))
                for path in paths:
                    inside = not path.startswith("/" + folder[1:]) if folder.startswith("!") else path.startswith(
                        "/" + folder)
                    if not inside:
                        problems.append("%s: a result in another language: %s" % (where, path))
                if state["scrollWidth"] > state["innerWidth"]:
                    problems.append("%s: the page scrolls sideways (%d > %d px)" % (
                        where, state["scrollWidth"], state["innerWidth"]))
                drawer = state["drawer"]
                if drawer and (drawer["left"] < 0 or drawer["right"] > state["innerWidth"]):
                    problems.append("%s: the results stick out of the window (%d to %d px)" % (
                        where, drawer["left"], drawer["right"]))
                for failure in failed_requests(driver.get_log("performance")):
                    problems.append("%s: failed request %s" % (where, failure))
                for entry in driver.get_log("browser"):
                    if entry["level"] == "SEVERE":
                        problems.append("%s: console error: %s" % (where, entry["message"]))
                driver.save_screenshot(os.path.join(shots, "search-%d-%d.png" % (number, width)))
                results.append({"case": where, "paths": paths, **state})
    finally:
        driver.quit()
        server.shutdown()
    print(json.dumps({"cases": len(results), "problems": problems, "results": results}, ensure_ascii=False))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
