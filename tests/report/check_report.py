#!/usr/bin/env python3
"""Opens a qcesim HTML report in headless Chromium (Debian's package) with the network cut off,
and checks what a reader gets: no console message, no exception and no request other than the
page itself; every section present; the numbers shown equal to the run's JSON; real text in the
charts; no horizontal scroll at a phone's width. Screenshots at 1280 px and 390 px.

The browser is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: commands on
its fd 3, replies on fd 4, each a JSON text ended by NUL), so no port is opened; as root it runs
in a new network namespace (unshare -n) where only a downed loopback exists.

  check_report.py REPORT.html REPORT.json OUTDIR [--run RUN.json] [--sections a,b,...]
REPORT.json is the report's own --json ("-" for a sweep's page: no numbers checked); --run names a `qcesim run --json` of the same scenario,
whose outputs the report's must equal.
exit 0 when every check holds, 1 with the failures listed, 77 when no browser is installed.
"""
import argparse
import base64
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chrome, profile):
        flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
            "--no-first-run", "--hide-scrollbars", "--force-device-scale-factor=1", "--remote-debugging-pipe",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--metrics-recording-only",
            "--disable-domain-reliability", "--host-resolver-rules=MAP * ~NOTFOUND",
            "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "about:blank",
        ]
        cmd = ["sh", "-c", 'exec "$0" "$@" 3<&0 4>&1 0</dev/null 1>&2', chrome] + flags
        if os.geteuid() == 0 and shutil.which("unshare") and \
                subprocess.run(["unshare", "-n", "true"], stderr=subprocess.DEVNULL).returncode == 0:
            cmd = ["unshare", "-n"] + cmd  # else (a container without the right) the flags above alone
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.proc.stdin.write(json.dumps(msg).encode() + b"\0")
        self.proc.stdin.flush()
        want = self.next_id
        deadline = time.time() + timeout
        while True:
            m = self.read(deadline)
            if m is None:
                raise RuntimeError(f"no reply to {method} within {timeout} s")
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        text, self.buf = self.buf.split(b"\0", 1)
        return json.loads(text)

    def pump(self, seconds):
        deadline = time.time() + seconds
        while True:
            m = self.read(deadline)
            if m is None:
                return
            self.events.append(m)

    def wait_event(self, method, seconds):
        deadline = time.time() + seconds
        for m in self.events:
            if m.get("method") == method:
                return True
        while True:
            m = self.read(deadline)
            if m is None:
                return False
            self.events.append(m)
            if m.get("method") == method:
                return True

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", data[16:24])


# What the page holds, read in the page itself.
PROBE = r"""JSON.stringify({
  sections: Array.from(document.querySelectorAll('section[id]')).map(s => s.id),
  numbers: Array.from(document.querySelectorAll('[data-field]')).map(e => ({
    variant: (e.closest('[data-variant]') || {dataset: {}}).dataset.variant,
    field: e.dataset.field, value: e.dataset.value, text: e.textContent})),
  svgText: document.querySelectorAll('svg text').length,
  svgs: document.querySelectorAll('svg').length,
  scripts: document.querySelectorAll('script').length,
  innerWidth: window.innerWidth,
  scrollWidth: document.documentElement.scrollWidth,
  height: document.documentElement.scrollHeight})"""


def field_of(doc, index, field):
    """The report JSON's value for a data-field path of variant `index` ("wall_s", "measured.cpu_s",
    "latency_us.p50"; "wall_s.p05" is the interval's end in its uncertainty part)."""
    variant = doc["variants"][index]
    if field.endswith(".p05") or field.endswith(".p95"):
        q, end = field.rsplit(".", 1)
        for u in (doc.get("uncertainty") or {}).get("variants", []):
            if u["name"] == variant["name"]:
                return u["quantities"].get(q, {}).get(end)
        return None
    v = variant
    for part in field.split("."):
        if not isinstance(v, dict) or part not in v:
            return None
        v = v[part]
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("run_json")
    ap.add_argument("outdir")
    ap.add_argument("--run", help="a `qcesim run --json` of the same scenario and variants")
    ap.add_argument("--sections", default="summary,results,timeline,where,lock,explain,sensitivity")
    args = ap.parse_args()
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chrome:
        print("no chromium: skipped (scripts/setup.sh installs it)")
        return 77
    real = "/usr/lib/chromium/chromium"
    if os.path.exists(real):
        chrome = real  # Debian's wrapper script adds flags of its own; the binary takes ours only
    report = os.path.abspath(args.report)
    url = "file://" + report
    run = json.load(open(args.run_json)) if args.run_json != "-" else None  # "-": a sweep's page
    failures = []
    if args.run:
        ran = {v["name"]: v for v in json.load(open(args.run))["variants"]}
        for v in run["variants"]:
            r = ran.get(v["name"])
            if r is None:
                failures.append(f"{v['name']}: not in {args.run}")
                continue
            for k in ("wall_s", "cpu_s", "hardirq_s", "softirq_s", "irqs", "bam_descriptors", "requests"):
                if v.get(k) != r.get(k):
                    failures.append(f"{v['name']}: {k} is {v.get(k)} in the report, {r.get(k)} in the run")
    profile = tempfile.mkdtemp(prefix="qcesim-chromium-")
    b = Browser(chrome, profile)
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            b.send(domain + ".enable", session=session)
        for width, height, mobile in ((1280, 900, False), (390, 844, True)):
            b.events = []
            b.send("Emulation.setDeviceMetricsOverride",
                   {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}, session=session)
            b.send("Page.navigate", {"url": url}, session=session)
            if not b.wait_event("Page.loadEventFired", 60):
                failures.append(f"{width} px: the page did not finish loading within 60 s")
                continue
            b.pump(0.5)
            for m in b.events:
                method, p = m.get("method"), m.get("params", {})
                if method == "Runtime.consoleAPICalled":
                    failures.append(f"{width} px: console.{p.get('type')}: {p.get('args')}")
                elif method == "Runtime.exceptionThrown":
                    failures.append(f"{width} px: exception: {p.get('exceptionDetails', {}).get('text')}")
                elif method == "Log.entryAdded":
                    e = p.get("entry", {})
                    failures.append(f"{width} px: log {e.get('level')}: {e.get('text')} {e.get('url', '')}")
                elif method == "Network.requestWillBeSent":
                    u = p.get("request", {}).get("url", "")
                    if u != url and not u.startswith("data:"):
                        failures.append(f"{width} px: a request for {u}")
            probe = json.loads(b.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True},
                                      session=session)["result"]["value"])
            if probe["innerWidth"] != width:
                failures.append(f"laid out at {probe['innerWidth']} px, not {width}")
            if probe["scrollWidth"] > probe["innerWidth"]:
                failures.append(f"{width} px: the page scrolls sideways ({probe['scrollWidth']} px wide)")
            if probe["scripts"]:
                failures.append(f"{probe['scripts']} script element(s): the page is to work without scripts")
            if width == 1280:
                for s in args.sections.split(","):
                    if s not in probe["sections"]:
                        failures.append(f"no section #{s} (found {probe['sections']})")
                if probe["svgs"] == 0 or probe["svgText"] < 20:
                    failures.append(f"charts without text: {probe['svgs']} SVGs, {probe['svgText']} text elements")
                checked = 0
                for n in probe["numbers"] if run else []:
                    if n["variant"] is None:
                        continue
                    v = run["variants"][int(n["variant"])]
                    want = field_of(run, int(n["variant"]), n["field"])
                    if n["field"].startswith("delta."):
                        continue  # derived; the table's own cells are checked
                    if want is None:
                        failures.append(f"{v['name']}: {n['field']} shown but not in the run's JSON")
                        continue
                    shown = float(n["text"].replace(",", ""))
                    if abs(float(n["value"]) - want) > 1e-9 * max(1.0, abs(want)):
                        failures.append(f"{v['name']}: {n['field']} is {n['value']} on the page, {want} in the JSON")
                    decimals = len(n["text"].split(".")[1]) if "." in n["text"] else 0
                    if abs(shown - want) > 0.5 * 10 ** -decimals + 1e-12:
                        failures.append(f"{v['name']}: {n['field']} shows {n['text']}, the JSON has {want}")
                    checked += 1
                if run and checked < 3 * len(run["variants"]):
                    failures.append(f"only {checked} numbers on the page could be checked against the JSON")
                print(f"1280 px: {len(probe['sections'])} sections, {checked} numbers equal to the run's JSON, "
                      f"{probe['svgs']} SVGs with {probe['svgText']} text elements")
            # The whole page as a reader scrolls it, at this width.
            b.send("Emulation.setDeviceMetricsOverride",
                   {"width": width, "height": min(probe["height"], 16000), "deviceScaleFactor": 1,
                    "mobile": mobile}, session=session)
            shot = base64.b64decode(b.send("Page.captureScreenshot", {"format": "png"}, session=session)["data"])
            size = png_size(shot)
            if not size or size[0] != width:
                failures.append(f"the {width} px screenshot is {size}")
            name = os.path.join(args.outdir, f"{os.path.splitext(os.path.basename(report))[0]}-{width}.png")
            with open(name, "wb") as f:
                f.write(shot)
            print(f"{width} px: screenshot {name} ({size[0]} x {size[1]})")
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
