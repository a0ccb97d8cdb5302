"""Runs views.sql on DuckDB over a generated fleet of 1,200 installs and checks every row of
every view against the generator's truth (fleet_fixture.py). Run by `./build.sh test`."""

from __future__ import annotations

import json
import sys
import tempfile
import unittest
from collections import defaultdict
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fleet_fixture import write_fleet  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
INSTALLS = 1200
LINE_FAULTS = {"connect_timeout", "connect_refused", "dns_failure", "tls_failure",
               "read_timeout", "connection_reset", "truncated"}


def failed(outcome):
    return outcome is not None and outcome not in ("ok", "http_4xx", "cancelled")


class FleetViews(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.truth = write_fleet(Path(cls.tmp.name), INSTALLS)
        cls.lines = sum(len(f.read_text().splitlines())
                        for f in Path(cls.tmp.name).rglob("*.jsonl"))
        cls.db = duckdb.connect()
        glob = f"{cls.tmp.name}/**/*.jsonl".replace("'", "''")
        cls.db.execute(f"SET VARIABLE trace_glob = '{glob}'")
        cls.db.execute((HERE / "load_duckdb.sql").read_text())
        cls.db.execute((HERE / "views.sql").read_text())

    @classmethod
    def tearDownClass(cls):
        cls.db.close()
        cls.tmp.cleanup()

    def rows(self, view):
        cur = self.db.execute(f"SELECT * FROM {view}")
        names = [d[0] for d in cur.description]
        return {(r[0], r[1], r[2]): dict(zip(names[3:], r[3:])) for r in cur.fetchall()}

    def test_every_event_of_every_install_is_loaded(self):
        (events, installs), = self.db.execute(
            "SELECT count(*), count(DISTINCT install) FROM linekit_events").fetchall()
        self.assertEqual(installs, INSTALLS)
        self.assertEqual(events, self.lines)
        (attempts,), = self.db.execute("SELECT count(*) FROM linekit_attempts").fetchall()
        self.assertEqual(attempts, len(self.truth))

    def test_failure_rate_per_line_network_and_app_version(self):
        want = defaultdict(lambda: {"attempts": 0, "reported": 0, "failed": 0, "line_faults": 0})
        for a in self.truth:
            w = want[(a.line, a.network_type, a.app_version)]
            w["attempts"] += 1
            w["reported"] += a.outcome is not None
            w["failed"] += failed(a.outcome)
            w["line_faults"] += a.outcome in LINE_FAULTS
        got = self.rows("linekit_failure_rate")
        self.assertEqual(len(got), len(want))
        self.assertEqual(len(got), 12)  # 2 lines x 2 network types x 3 app versions
        for key, w in want.items():
            g = got[key]
            self.assertEqual({k: g[k] for k in w}, w, key)
            self.assertAlmostEqual(g["failure_rate"], w["failed"] / w["reported"], msg=key)
        self.assertGreater(sum(w["failed"] for w in want.values()), 0)

    def test_moves_count_switches_and_retries_onto_each_line(self):
        want = defaultdict(lambda: {"switches_in": 0, "retries_in": 0})
        for a in self.truth:
            w = want[(a.line, a.network_type, a.app_version)]
            w["switches_in"] += a.attempt == 0 and a.previous_line not in (None, a.line)
            w["retries_in"] += a.attempt > 0
        got = self.rows("linekit_moves")
        self.assertEqual(got, dict(want))
        self.assertGreater(sum(w["switches_in"] for w in want.values()), 0)
        self.assertGreater(sum(w["retries_in"] for w in want.values()), 0)

    def test_savings_split_known_from_unverified(self):
        want = defaultdict(lambda: {"observed_calls": 0, "failed": 0, "would_move": 0,
                                    "saved_known": 0, "saved_unverified": 0})
        for a in self.truth:
            if a.mode != "observe" or a.attempt:
                continue
            w = want[(a.line, a.network_type, a.app_version)]
            moves = a.would_line is not None and a.would_line != a.line
            fault = a.outcome in LINE_FAULTS
            w["observed_calls"] += 1
            w["failed"] += failed(a.outcome)
            w["would_move"] += moves
            w["saved_known"] += fault and moves and bool(a.would_healthy)
            w["saved_unverified"] += fault and moves and not a.would_healthy
        got = self.rows("linekit_savings")
        self.assertEqual(got, dict(want))
        total = {k: sum(w[k] for w in want.values()) for k in ("saved_known", "saved_unverified")}
        self.assertGreater(total["saved_known"], 0)
        self.assertGreater(total["saved_unverified"], 0)

    def test_the_fixture_writes_only_fields_of_the_trace_schema(self):
        schema = json.loads((ROOT / "docs" / "trace.schema.json").read_text())
        known = set(schema["properties"]) | {"app_version"}
        seen = set()
        for f in Path(self.tmp.name).rglob("*.jsonl"):
            for line in f.read_text().splitlines():
                seen |= set(json.loads(line))
        self.assertEqual(seen - known, set(), "fields the trace format does not define")


if __name__ == "__main__":
    unittest.main(verbosity=2)
