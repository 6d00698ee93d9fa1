"""Open an HTML file in a real headless Chromium and report what a reader would see break.

Drives the browser over the Chrome DevTools Protocol with tornado's websocket client (tornado
comes with dask.distributed, so no extra package is needed): starts Chromium headless with a
throw-away profile, opens the file, waits for the load event, then reads every ``<img>``'s
load state and collects console errors, uncaught exceptions and browser log errors (a failed
resource, a blocked load, a CSP violation). Chromium comes from the system packages
(``apt-get install chromium``; ``.ci/run`` installs it); ``LOBA_CHROMIUM`` names another binary.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

NAMES = ("chromium", "chromium-headless-shell", "chromium-browser", "google-chrome", "chrome")

IMAGES_JS = """JSON.stringify(Array.from(document.images).map(i => ({
    alt: i.alt, complete: i.complete, width: i.naturalWidth, height: i.naturalHeight})))"""


def find_chromium() -> str | None:
    """The Chromium binary: ``$LOBA_CHROMIUM`` or the first of :data:`NAMES` on the PATH."""
    env = os.environ.get("LOBA_CHROMIUM")
    if env:
        return env
    for n in NAMES:
        p = shutil.which(n)
        if p:
            return p
    return None


@dataclass
class PageReport:
    """What the browser saw: every image (alt, complete, natural size), errors, the title."""

    images: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    title: str = ""

    @property
    def broken_images(self) -> list[dict]:
        return [i for i in self.images if not i["complete"] or i["width"] == 0]


def _start(exe: str, profile: str) -> tuple[subprocess.Popen, str]:
    args = [
        exe,
        "--headless",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        f"--user-data-dir={profile}",
        "--remote-debugging-port=0",
        "about:blank",
    ]
    if os.geteuid() == 0:
        args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    lines = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            if proc.poll() is not None:
                break
            continue
        lines.append(line)
        m = re.search(r"DevTools listening on (ws://\S+)", line)
        if m:
            return proc, m.group(1)
    proc.kill()
    raise RuntimeError("Chromium did not start:\n" + "".join(lines[-20:]))


async def _session(ws_url: str, url: str, timeout: float) -> PageReport:
    from tornado.websocket import websocket_connect

    ws = await websocket_connect(ws_url, max_message_size=64 * 1024 * 1024)
    report = PageReport()
    ids = iter(range(1, 10**9))
    waiting: dict[int, asyncio.Future] = {}
    loaded = asyncio.get_running_loop().create_future()

    async def reader():
        while True:
            raw = await ws.read_message()
            if raw is None:
                return
            msg = json.loads(raw)
            if "id" in msg and msg["id"] in waiting:
                waiting.pop(msg["id"]).set_result(msg)
                continue
            method, params = msg.get("method"), msg.get("params", {})
            if method == "Page.loadEventFired" and not loaded.done():
                loaded.set_result(True)
            elif method == "Runtime.exceptionThrown":
                d = params.get("exceptionDetails", {})
                what = d.get("exception", {}).get("description") or d.get("text")
                report.errors.append(f"exception: {what}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                texts = [str(a.get("value", a.get("description"))) for a in params.get("args", [])]
                report.errors.append("console: " + " ".join(texts))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                e = params["entry"]
                report.errors.append(f"log ({e.get('source')}): {e.get('text')} {e.get('url', '')}")

    async def call(method, params=None, session=None):
        i = next(ids)
        fut = asyncio.get_running_loop().create_future()
        waiting[i] = fut
        msg = {"id": i, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        await ws.write_message(json.dumps(msg))
        res = await asyncio.wait_for(fut, timeout)
        if "error" in res:
            raise RuntimeError(f"{method}: {res['error']}")
        return res.get("result", {})

    task = asyncio.create_task(reader())
    try:
        target = await call("Target.createTarget", {"url": "about:blank"})
        att = await call("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        sid = att["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            await call(f"{domain}.enable", session=sid)
        await call("Page.navigate", {"url": url}, session=sid)
        await asyncio.wait_for(loaded, timeout)
        await asyncio.sleep(0.5)  # let late console messages arrive
        res = await call(
            "Runtime.evaluate", {"expression": IMAGES_JS, "returnByValue": True}, session=sid
        )
        report.images = json.loads(res["result"]["value"])
        res = await call(
            "Runtime.evaluate", {"expression": "document.title", "returnByValue": True}, session=sid
        )
        report.title = res["result"]["value"]
        try:
            await call("Browser.close")
        except Exception:
            pass
    finally:
        task.cancel()
        ws.close()
    return report


def load_page(path, timeout: float = 60) -> PageReport:
    """Open ``path`` (an HTML file) in headless Chromium and return what it saw."""
    exe = find_chromium()
    if exe is None:
        raise RuntimeError(
            "No Chromium found: install it (apt-get install chromium) or set LOBA_CHROMIUM."
        )
    # Chromium's helper processes may still write to the profile for a moment after the
    # browser exits: its removal must not fail the check
    with tempfile.TemporaryDirectory(
        prefix="loba-chromium-", ignore_cleanup_errors=True
    ) as profile:
        proc, ws_url = _start(exe, profile)
        try:
            return asyncio.run(_session(ws_url, Path(path).resolve().as_uri(), timeout))
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
