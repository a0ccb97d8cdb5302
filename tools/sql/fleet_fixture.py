"""A generated fleet of Linekit traces with known truth, for the tests of views.sql.

Each install records one business line (`spot`, HTTP pool, lines `primary` and `backup`)
for 30 calls, on Wi-Fi or cellular (some change network half-way), under one of three app
versions. A quarter of the fleet runs rollout mode `on`, the rest `observe`. Every fifth
install sees `primary` refuse connections for calls 10-19:

- `on`: the first failed call retries on `backup`, the next calls go to `backup`, and the
  pool moves back to `primary` after the outage;
- `observe`: every call stays on `primary` (its original URL) and fails during the outage;
  from the second failed call the engine would have chosen `backup`, known healthy or not
  depending on the install.

Some traces end with a call still in flight (a route without a report). The generator keeps
the truth of every attempt, so a test can compare the views with it.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

APP_VERSIONS = ("5.1.0", "5.2.0", "5.3.0")
CALLS = 30
OUTAGE = range(10, 20)


@dataclass(frozen=True)
class Attempt:
    """The truth of one routed attempt."""

    line: str
    network_type: str
    app_version: str
    attempt: int
    mode: str
    outcome: str | None
    would_line: str | None
    would_healthy: bool | None
    previous_line: str | None


def install_id(i: int) -> str:
    return f"{i * 2654435761 % 2**64:016x}"


def write_fleet(root: Path, installs: int, seed: int = 7) -> list[Attempt]:
    """Writes one JSON Lines trace per install under root/<app_version>/ and returns the
    truth of every attempt."""
    rng = random.Random(seed)
    truth: list[Attempt] = []
    for i in range(installs):
        app = APP_VERSIONS[i % len(APP_VERSIONS)]
        install = install_id(i)
        mode = "on" if i % 4 == 0 else "observe"
        outage = i % 5 == 0
        backup_known = i % 10 == 0
        in_flight_at_end = i % 7 == 3
        transports = ["wifi", "cellular"]
        network = rng.choice(transports)
        change_at = CALLS // 2 if rng.random() < 0.3 else None
        events: list[dict] = []
        t = 0

        def emit(kind: str, **fields) -> None:
            events.append({"kind": kind, "at_ms": t, "install": install, "seq": len(events),
                           "app_version": app, **fields})

        emit("start", config_version=1)
        emit("network", network={"handle": 100 + i, "validated": True, "transport": network})
        previous = None
        for k in range(CALLS):
            t = 1000 + k * 100
            if change_at == k:
                network = "cellular" if network == "wifi" else "wifi"
                emit("network", network={"handle": 200 + i, "validated": True,
                                         "transport": network})
            failing = outage and k in OUTAGE
            last = k == CALLS - 1
            base = {"biz": "spot", "protocol": "http", "method": "GET"}
            if mode == "on":
                line = "backup" if outage and k in OUTAGE and k > OUTAGE.start else "primary"
                plan = [(line, "connect_refused" if failing and line == "primary" else "ok")]
                if failing and line == "primary":
                    plan.append(("backup", "ok"))
                for n, (on, outcome) in enumerate(plan):
                    reason = "retry" if n else ("switch" if on != previous else "sticky")
                    route = {**base, "line": on, "reason": reason, "attempt": n, "mode": "on"}
                    if n:
                        route["exclude"] = ["primary"]
                    emit("route", **route)
                    reported = not (last and in_flight_at_end)
                    if reported:
                        emit("report", biz="spot", protocol="http", line=on, outcome=outcome,
                             total_ms=3)
                    truth.append(Attempt(on, network, app, n, "on",
                                         outcome if reported else None, None, None,
                                         previous if n == 0 else None))
                    t += 5
                previous = plan[0][0]
            else:
                would = "backup" if failing and k > OUTAGE.start else "primary"
                healthy = backup_known if would == "backup" else not failing
                outcome = "connect_refused" if failing else "ok"
                emit("route", **base, line="primary", reason="observe", attempt=0,
                     mode="observe", would_line=would,
                     would_reason="switch" if would != "primary" else "sticky",
                     would_healthy=healthy)
                reported = not (last and in_flight_at_end)
                if reported:
                    emit("report", biz="spot", protocol="http", line="primary",
                         outcome=outcome, total_ms=3)
                truth.append(Attempt("primary", network, app, 0, "observe",
                                     outcome if reported else None, would, healthy, previous))
                previous = "primary"
        path = root / app / f"{install}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events))
    return truth
