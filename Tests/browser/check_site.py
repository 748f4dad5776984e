#!/usr/bin/env python3
"""Loads every page of a built site in headless Chromium and reports what rendered.

Usage: check_site.py SITE_FOLDER SCREENSHOT_FOLDER

The site is served over HTTP from a local server (as a host would serve it), each page is
loaded at 390 px (a phone) and 1280 px (a desktop), and for each load the script records:
horizontal overflow, whether the page's first <h1> is visible, and every request that failed
or answered 4xx/5xx. Landing pages and the first page of each kind are kept as screenshots.

A site without a search index (Pagefind's `pagefind/`, made after the build) answers the search
box's question for it, `pagefind/pagefind-entry.json`, with 404, and the box stays hidden: that
one 404 is the answer, not a broken link. With an index, it is a failure like any other.
Prints one JSON object; exits 1 when any page has a problem, 2 when the browser cannot start.
"""
import functools
import http.server
import json
import os
import sys
import threading

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

WIDTHS = [(390, 844), (1280, 900)]

MEASURE = """
const h1 = document.querySelector('h1');
const box = h1 ? h1.getBoundingClientRect() : null;
const style = h1 ? getComputedStyle(h1) : null;
return {
  scrollWidth: document.documentElement.scrollWidth,
  innerWidth: window.innerWidth,
  lang: document.documentElement.lang,
  title: document.title,
  h1: h1 ? h1.textContent.trim() : null,
  h1Visible: !!(box && box.width > 0 && box.height > 0 && box.top < window.innerHeight
                && style.visibility !== 'hidden' && style.display !== 'none'),
  wide: Array.from(document.querySelectorAll('body *'))
    .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
    .slice(0, 3).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '')),
};
"""


def pages(root):
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".html"):
                relative = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
                found.append(relative[: -len("index.html")] if relative.endswith("index.html") else relative)
    return sorted(found)


def keep_screenshot(path, kept):
    """Landing pages (not under a kind folder) and the first page of each kind, per locale."""
    parts = [p for p in path.split("/") if p]
    kinds = {"guides", "checklists", "decks"}
    kind = next((p for p in parts if p in kinds), None)
    if kind is None:
        return True
    locale = parts[0] if parts[0] not in kinds else ""
    key = (locale, kind, len(parts))
    if key in kept:
        return False
    kept.add(key)
    return True


def main():
    site, shots = sys.argv[1], sys.argv[2]
    os.makedirs(shots, exist_ok=True)
    handler = functools.partial(QuietHandler, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % server.server_address[1]

    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(argument)
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    try:
        driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
    except Exception as error:  # noqa: BLE001 - report any start failure
        print(json.dumps({"error": "cannot start Chromium: %s" % error}))
        return 2

    # The search box asks for the index's entry; without an index the 404 is expected.
    probe = base + "pagefind/pagefind-entry.json"
    indexed = os.path.exists(os.path.join(site, "pagefind", "pagefind-entry.json"))
    results, problems, kept = [], [], set()
    try:
        for width, height in WIDTHS:
            driver.set_window_size(width, height)
            for path in pages(site):
                driver.get_log("performance")  # drop what earlier loads left
                driver.get(base + path)
                measured = driver.execute_script(MEASURE)
                failed = [failure for failure in failed_requests(driver.get_log("performance"))
                          if indexed or failure != probe + " (404)"]
                entry = {"path": path, "width": width, **measured, "failed": failed}
                results.append(entry)
                page_problems = []
                if measured["scrollWidth"] > measured["innerWidth"]:
                    page_problems.append("overflows horizontally (%d > %d px): %s" % (
                        measured["scrollWidth"], measured["innerWidth"], ", ".join(measured["wide"])))
                if not measured["h1Visible"]:
                    page_problems.append("no visible <h1> in the first screen")
                if failed:
                    page_problems.append("failed requests: " + ", ".join(failed))
                for problem in page_problems:
                    problems.append("%s at %d px: %s" % (path or "/", width, problem))
                if keep_screenshot(path, kept):
                    name = "%s-%d.png" % (screenshot_name(path), width)
                    driver.save_screenshot(os.path.join(shots, name))
            kept = set()
    finally:
        driver.quit()
        server.shutdown()
    print(json.dumps({"pages": len(results), "problems": problems, "results": results}, ensure_ascii=False))
    return 1 if problems else 0


def screenshot_name(path):
    name = path.strip("/").replace("/", "_")
    return name or "home"


def failed_requests(log):
    failed, urls = [], {}
    for entry in log:
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message["method"] == "Network.requestWillBeSent":
            urls[params["requestId"]] = params["request"]["url"]
        elif message["method"] == "Network.responseReceived" and params["response"]["status"] >= 400:
            failed.append("%s (%d)" % (params["response"]["url"], params["response"]["status"]))
        elif message["method"] == "Network.loadingFailed" and not params.get("canceled"):
            failed.append("%s (%s)" % (urls.get(params["requestId"], "?"), params.get("errorText")))
    return failed


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


if __name__ == "__main__":
    sys.exit(main())
