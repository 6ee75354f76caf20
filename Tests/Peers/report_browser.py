#!/usr/bin/env python3
"""Opens an sdl-run HTML report in Debian's chromium (headless, through chromium-driver and
python3-selenium) and checks what a person sees: the lifelines of each scenario (the app's,
one per app where it has several, and the head unit's), one arrow per
message of result.json, the failed step marked red with what it expected and what came, and a
click on an arrow showing that message. Saves a screenshot.

Usage: report_browser.py REPORT.html RESULT.json SCREENSHOT.png [first-section]
(first-section: the screenshot is of the first scenario's chart alone, for the docs)
Prints one line per check that failed and exits 1, or prints the counts and exits 0."""
import json
import os
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def main(report, result_path, screenshot, crop=None):
    result = json.load(open(result_path))
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,1600"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    problems = []
    try:
        driver.get("file://" + report)
        sections = driver.find_elements(By.CSS_SELECTOR, "section.scenario")
        if len(sections) != len(result["scenarios"]):
            problems.append(f"{len(sections)} scenario sections for {len(result['scenarios'])} scenarios")
        for section, scenario in zip(sections, result["scenarios"]):
            name = scenario["name"]
            actors = [a.text for a in section.find_elements(By.CSS_SELECTOR, "text.actor")]
            # A lifeline per app in a scenario with several, in the order they first appear.
            apps = list(dict.fromkeys(m["app"] for m in scenario["sent"] + scenario["received"] if m.get("app"))) or ["app"]
            if actors != apps + ["head unit"] + (["HMI"] if scenario.get("hmi") else []):
                problems.append(f"{name}: lifelines {actors}")
            arrows = section.find_elements(By.CSS_SELECTOR, "g.arrow")
            expected = len(scenario["sent"]) + len(scenario["received"]) + len(scenario.get("hmi", []))
            # A folded run is one bar that says how many messages it holds (counted in the page:
            # a WebDriver call per arrow takes seconds for a large run).
            drawn = driver.execute_script(
                "return [...arguments[0].querySelectorAll('g.arrow')].reduce((n, a) => n + Number(a.dataset.count || 1), 0)", section)
            if drawn != expected:
                problems.append(f"{name}: {drawn} messages drawn ({len(arrows)} arrows and bars) for {expected} messages")
            print(f"{name}: {expected} messages in {len(arrows)} rows")
            for line in scenario.get("differences", []):
                if line not in section.find_element(By.CSS_SELECTOR, ".differences").text:
                    problems.append(f"{name}: the differences box lacks {line!r}")
            differing = [s for s in scenario["steps"] if s["path"] in scenario.get("differingSteps", [])]
            if len(section.find_elements(By.CSS_SELECTOR, "g.step.differs")) < min(len(differing), 1):
                problems.append(f"{name}: no step marked as differing")
            failed = [s for s in scenario["steps"] if s["status"] == "failed"]
            marked = section.find_elements(By.CSS_SELECTOR, "g.step.failed")
            if len(marked) != len(failed):
                problems.append(f"{name}: {len(marked)} steps marked failed, {len(failed)} failed")
            for step in failed:
                box = section.find_element(By.CSS_SELECTOR, ".failure").text
                if step["message"] not in box:
                    problems.append(f"{name}: the failure box lacks {step['message']!r}: {box!r}")
            if arrows:
                arrows[0].click()
                details = driver.find_element(By.ID, "details")
                shown = driver.find_element(By.ID, "message").text
                first = min(scenario["sent"] + scenario["received"] + scenario.get("hmi", []), key=lambda m: m["timeMS"])
                if not details.is_displayed() or first["function"] not in shown:
                    problems.append(f"{name}: a click on the first arrow showed {shown[:80]!r}")
                driver.find_element(By.ID, "close").click()
        # A script error (or any console error) fails the check.
        for entry in driver.get_log("browser"):
            if entry.get("level") == "SEVERE":
                problems.append(f"console: {entry.get('message')}")
        if crop == "first-section" and sections:
            sections[0].screenshot(screenshot)
        else:
            driver.save_screenshot(screenshot)
        print(f"drawn in {driver.find_element(By.TAG_NAME, 'body').get_attribute('data-render-ms')} ms")
    finally:
        driver.quit()
    for problem in problems:
        print(problem)
    if not problems:
        print(f"checked {len(result['scenarios'])} scenarios")
    return 1 if problems else 0


if __name__ == "__main__":
    # Chromium keeps its profile and singleton sockets in the temporary folder and leaves some
    # behind at exit: a folder of its own, removed here, keeps the caller's TMPDIR as it was.
    with tempfile.TemporaryDirectory(prefix="report-browser-", ignore_cleanup_errors=True) as scratch:
        os.environ["TMPDIR"] = scratch
        tempfile.tempdir = None
        sys.exit(main(*sys.argv[1:5]))
