#!/usr/bin/env python3
"""Opens a page that `locker serve` serves in headless Chromium, saves a note, and waits for the
open page to reload by itself and show the edit.

Usage: check_reload.py PAGE_URL NOTE_PATH NEW_NOTE_TEXT EXPECTED_H1

Prints one JSON object: whether the page reloaded (a marker set on the old page is gone), the
<h1> before and after, and the seconds it took. Exits 0 when the page showed EXPECTED_H1 within
15 seconds, 1 when it did not, 2 when the browser cannot start.
"""
import json
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

STATE = """
const h1 = document.querySelector('h1');
return {marker: window.__lockerBefore === true, h1: h1 ? h1.textContent.trim() : null,
        overlay: !!document.getElementById('locker-diagnostics')};
"""


def main():
    url, note, text, expected = sys.argv[1:5]
    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    try:
        driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")),
                                  options=options)
    except Exception as error:  # noqa: BLE001 - report any start failure
        print(json.dumps({"error": "cannot start Chromium: %s" % error}))
        return 2
    try:
        driver.get(url)
        driver.execute_script("window.__lockerBefore = true;")
        before = driver.execute_script(STATE)
        time.sleep(0.5)  # the page's event stream connects
        start = time.monotonic()
        with open(note, "w", encoding="utf-8") as handle:
            handle.write(text)
        after = before
        while time.monotonic() - start < 15:
            time.sleep(0.2)
            try:
                after = driver.execute_script(STATE)
            except Exception:  # noqa: BLE001 - the page is between loads
                continue
            if not after["marker"] and after["h1"] == expected:
                break
        reloaded = not after["marker"]
        print(json.dumps({"reloaded": reloaded, "before": before, "after": after,
                          "seconds": round(time.monotonic() - start, 2)}, ensure_ascii=False))
        return 0 if reloaded and after["h1"] == expected else 1
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
