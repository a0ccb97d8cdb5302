"""scripts/release-flags.sh and scripts/cargo-ndk.sh: 16 KB pages for every ABI in every
build, the version-tied flags only in the release set and only with the pinned rustc, and
LINEKIT_STABLE_FLAGS=1 selecting the stable set. cargo, rustc and rustup are stand-ins
that record what they were given, so nothing is built."""

import os
import re
import subprocess
import tomllib
import unittest
from pathlib import Path

from support import ROOT, temp_dir

FLAGS = ROOT / "scripts" / "release-flags.sh"
PAGES = ("-Wl,-z,max-page-size=16384", "-Wl,-z,common-page-size=16384")
ABIS = ("arm64-v8a", "armeabi-v7a", "x86_64", "x86")


def pinned_version():
    with open(ROOT / "rust-toolchain.toml", "rb") as f:
        return tomllib.load(f)["toolchain"]["channel"]


def flags(script, env=None):
    """Runs SCRIPT in bash after sourcing release-flags.sh; returns its stdout."""
    result = subprocess.run(
        ["bash", "-c", f"set -euo pipefail; source {FLAGS}; {script}"],
        capture_output=True, text=True, env={**os.environ, **(env or {})},
    )
    if result.returncode != 0:
        raise AssertionError(result.stderr)
    return result.stdout


class ReleaseFlags(unittest.TestCase):
    def test_pinned_version_is_the_toolchain_file(self):
        self.assertEqual(flags('echo "$LINEKIT_RUST_VERSION"').strip(), pinned_version())
        toolchain = tomllib.loads((ROOT / "rust-toolchain.toml").read_text())["toolchain"]
        self.assertRegex(toolchain["channel"], r"^\d+\.\d+\.\d+$", "pin an exact version")
        self.assertIn("rust-src", toolchain["components"])
        self.assertEqual(
            sorted(toolchain["targets"]),
            sorted(["aarch64-linux-android", "armv7-linux-androideabi",
                    "x86_64-linux-android", "i686-linux-android"]),
        )

    def test_both_sets_link_16k_pages(self):
        for env in ({}, {"LINEKIT_STABLE_FLAGS": "1"}):
            with self.subTest(env=env):
                rustflags = flags('echo "$LINEKIT_RELEASE_RUSTFLAGS"', env)
                for page in PAGES:
                    self.assertIn(f"-C link-arg={page}", rustflags)

    def test_stable_set_has_no_version_tied_flag(self):
        out = flags(
            'echo "$LINEKIT_FLAG_SET"; echo "$LINEKIT_RELEASE_RUSTFLAGS"; '
            'echo "${LINEKIT_RELEASE_CARGO_ARGS[*]}"; linekit_target_rustflags x86_64-linux-android',
            {"LINEKIT_STABLE_FLAGS": "1"},
        ).splitlines()
        self.assertEqual(out[0], "stable")
        self.assertNotRegex(out[1], r"(^| )-Z")
        self.assertNotIn("llvm-args", out[1])
        self.assertNotIn("-Z", out[2])
        self.assertEqual(out[2], "--release -p linekit-android --lib")
        self.assertEqual(out[3:], [])

    def test_release_set_adds_the_version_tied_flags(self):
        out = flags(
            'echo "$LINEKIT_FLAG_SET"; echo "$LINEKIT_RELEASE_RUSTFLAGS"; '
            'echo "${LINEKIT_RELEASE_CARGO_ARGS[*]}"; linekit_target_rustflags x86_64'
        ).splitlines()
        self.assertEqual(out[0], "release")
        self.assertIn("-Zlocation-detail=none", out[1])
        self.assertIn("-Cllvm-args=-inline-threshold=25", out[1])
        self.assertIn("-Zbuild-std=std,panic_unwind", out[2])
        self.assertEqual(out[3], "-Zunstable-options -Cforce-frame-pointers=non-leaf")

    def test_rustc_bootstrap_only_for_the_release_set(self):
        show = 'linekit_release_cargo env | grep -E "^(RUSTC_BOOTSTRAP|RUSTFLAGS)=" || true'
        release = flags(show, {"RUSTC_BOOTSTRAP": ""})
        self.assertIn("RUSTC_BOOTSTRAP=1", release)
        stable = flags(f"unset RUSTC_BOOTSTRAP; {show}", {"LINEKIT_STABLE_FLAGS": "1"})
        self.assertNotIn("RUSTC_BOOTSTRAP", stable)
        self.assertIn("max-page-size=16384", stable)


class ToolchainCheck(unittest.TestCase):
    def setUp(self):
        self.bin = temp_dir(self)

    def stand_in(self, name, body):
        path = self.bin / name
        path.write_text("#!/usr/bin/env bash\n" + body + "\n")
        path.chmod(0o755)

    def run_check(self, env=None):
        return subprocess.run(
            ["bash", "-c", f"source {FLAGS}; linekit_check_toolchain"],
            capture_output=True, text=True,
            env={**os.environ, "PATH": f"{self.bin}:{os.environ['PATH']}", **(env or {})},
        )

    def test_another_rustc_is_refused_for_the_release_set(self):
        self.stand_in("rustc", 'echo "rustc 1.80.0 (051478957 2024-07-21)"')
        result = self.run_check()
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"tied to Rust {pinned_version()}", result.stderr)
        self.assertIn("LINEKIT_STABLE_FLAGS=1", result.stderr)
        self.assertEqual(self.run_check({"LINEKIT_STABLE_FLAGS": "1"}).returncode, 0)

    def test_the_pinned_rustc_passes(self):
        self.stand_in("rustc", f'echo "rustc {pinned_version()} (0000000 2026-01-01)"')
        self.assertEqual(self.run_check().returncode, 0, self.run_check().stderr)


class CargoNdkScript(unittest.TestCase):
    """scripts/cargo-ndk.sh with a stand-in cargo that logs each call's arguments and
    RUSTFLAGS, the pinned rustc and a rustup that reports rust-src installed."""

    def setUp(self):
        self.dir = temp_dir(self)
        self.log = self.dir / "calls"
        for name, body in {
            "cargo": f'printf "%s\\n" "ARGS $*" "RUSTFLAGS $RUSTFLAGS" "BOOTSTRAP ${{RUSTC_BOOTSTRAP:-}}" >> {self.log}',
            "rustc": f'echo "rustc {pinned_version()} (0000000 2026-01-01)"',
            "rustup": 'echo "rust-src (installed)"',
        }.items():
            path = self.dir / name
            path.write_text("#!/usr/bin/env bash\n" + body + "\n")
            path.chmod(0o755)

    def calls(self, mode, env=None):
        result = subprocess.run(
            ["bash", str(ROOT / "scripts" / "cargo-ndk.sh"), mode, str(self.dir / "out"), "24", *ABIS],
            capture_output=True, text=True,
            env={**os.environ, "PATH": f"{self.dir}:{os.environ['PATH']}",
                 "LINEKIT_CARGO": str(self.dir / "cargo"), **(env or {})},
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = self.log.read_text().splitlines()
        return [lines[i : i + 3] for i in range(0, len(lines), 3)]

    def test_release_builds_each_abi_with_16k_pages_and_the_release_set(self):
        calls = self.calls("release")
        self.assertEqual(len(calls), len(ABIS))
        for abi, (args, rustflags, bootstrap) in zip(ABIS, calls):
            with self.subTest(abi=abi):
                self.assertTrue(args.startswith(f"ARGS ndk -t {abi} --platform 24 -o "), args)
                self.assertIn("--release -p linekit-android --lib -Zbuild-std", args)
                for page in PAGES:
                    self.assertIn(page, rustflags)
                self.assertIn("--pack-dyn-relocs=android", rustflags)
                self.assertEqual(bootstrap, "BOOTSTRAP 1")

    def test_stable_flags_reach_cargo_ndk(self):
        for args, rustflags, bootstrap in self.calls("release", {"LINEKIT_STABLE_FLAGS": "1"}):
            self.assertNotIn("-Zbuild-std", args)
            self.assertNotRegex(rustflags, r" -Z")
            self.assertIn(PAGES[0], rustflags)
            self.assertEqual(bootstrap.strip(), "BOOTSTRAP")

    def test_debug_is_the_dev_profile_with_16k_pages(self):
        calls = self.calls("debug")
        self.assertEqual(len(calls), len(ABIS))
        for abi, (args, rustflags, bootstrap) in zip(ABIS, calls):
            with self.subTest(abi=abi):
                self.assertTrue(re.fullmatch(rf"ARGS ndk -t {abi} --platform 24 -o \S+ build -p linekit-android --lib", args), args)
                self.assertEqual(rustflags.split(), ["RUSTFLAGS", "-C", f"link-arg={PAGES[0]}", "-C", f"link-arg={PAGES[1]}"])


if __name__ == "__main__":
    unittest.main()


class ToolchainScript(unittest.TestCase):
    """scripts/rust-toolchain.sh (the workflows' Rust set-up) adds every target and component
    rust-toolchain.toml lists, with a stand-in rustup that logs its arguments."""

    def test_installs_the_files_targets_and_components(self):
        bin_dir = temp_dir(self)
        log = bin_dir / "calls"
        for name, body in {"rustup": f'echo "$*" >> {log}', "rustc": 'echo "rustc stand-in"'}.items():
            (bin_dir / name).write_text(f"#!/usr/bin/env bash\n{body}\n")
            (bin_dir / name).chmod(0o755)
        result = subprocess.run(
            ["bash", str(ROOT / "scripts" / "rust-toolchain.sh")], capture_output=True, text=True,
            env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        toolchain = tomllib.loads((ROOT / "rust-toolchain.toml").read_text())["toolchain"]
        self.assertEqual(
            log.read_text().splitlines(),
            ["toolchain install", "target add " + " ".join(toolchain["targets"]),
             "component add " + " ".join(toolchain["components"])],
        )
