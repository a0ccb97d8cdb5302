"""Static checks of the two GitHub workflows, which cannot run here (actionlint, run by
./build.sh test, checks their syntax and shell): the toolchain comes from rust-toolchain.toml,
the emulator legs reuse the build job's artifacts, one leg boots with 16 KB pages, and a
version tag signs, publishes and attaches what users install."""

import re
import tomllib
import unittest

import yaml

from support import ROOT


def load(name):
    with open(ROOT / ".github" / "workflows" / name) as f:
        workflow = yaml.safe_load(f)
    # YAML 1.1 reads the `on` key as true.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def runs(job):
    return "\n".join(step.get("run", "") for step in job["steps"])


def uses(job):
    return [step.get("uses", "") for step in job["steps"]]


def workspace_packages():
    """Package name -> (its bin names, its feature names), from the workspace's manifests."""
    with open(ROOT / "Cargo.toml", "rb") as f:
        members = tomllib.load(f)["workspace"]["members"]
    packages = {}
    for member in members:
        with open(ROOT / member / "Cargo.toml", "rb") as f:
            manifest = tomllib.load(f)
        bins = {b["name"] for b in manifest.get("bin", [])}
        bins |= {p.stem for p in (ROOT / member / "src" / "bin").glob("*.rs")}
        packages[manifest["package"]["name"]] = (bins, set(manifest.get("features", {})))
    return packages


class BothWorkflows(unittest.TestCase):
    def test_cargo_commands_name_packages_bins_and_features_that_exist(self):
        packages = workspace_packages()
        for name in ("android.yml", "release.yml"):
            for job_name, job in load(name)["jobs"].items():
                for line in runs(job).splitlines():
                    if not re.search(r"\bcargo (build|run|test|install)\b", line) or "cargo install" in line:
                        continue
                    with self.subTest(workflow=name, job=job_name, command=line.strip()):
                        for package in re.findall(r"-p ([\w-]+)", line):
                            self.assertIn(package, packages, "no such workspace package")
                            bins, features = packages[package]
                            for binary in re.findall(r"--bin ([\w-]+)", line):
                                self.assertIn(binary, bins, f"{package} has no bin {binary}")
                            for feature in re.findall(r"--features ([\w,-]+)", line):
                                self.assertLessEqual(set(feature.split(",")), features, f"{package} features")

    def test_rust_comes_from_the_toolchain_file(self):
        for name in ("android.yml", "release.yml"):
            for job_name, job in load(name)["jobs"].items():
                with self.subTest(workflow=name, job=job_name):
                    self.assertFalse([u for u in uses(job) if "rust-toolchain" in u], "no toolchain action")
                    # A job that builds Rust (cargo itself, or build.sh) installs the file's toolchain.
                    if re.search(r"\bcargo\b|build\.sh", runs(job)):
                        self.assertIn("scripts/rust-toolchain.sh", runs(job))

    def test_cargo_ndk_is_pinned_to_4_1(self):
        for name in ("android.yml", "release.yml"):
            self.assertRegex(load(name)["env"]["CARGO_NDK_VERSION"], r"^4\.1\.\d+$")


class AndroidWorkflow(unittest.TestCase):
    def setUp(self):
        self.workflow = load("android.yml")
        self.build = self.workflow["jobs"]["build"]
        self.emulator = self.workflow["jobs"]["emulator"]

    def test_build_checks_what_users_get(self):
        script = runs(self.build)
        self.assertIn(":android-bindings:testDebugUnitTest", script)
        self.assertIn("scripts/check_16k_alignment.py", script)
        self.assertIn('-c -P 16 -v 4 "$apk"', script)
        self.assertIn("dev\\.linekit/-line-kit/index\\.html", script)
        self.assertIn('assert root.findtext("m:packaging", namespaces=ns) == "aar"', script)

    def test_a_16k_leg_on_api_35_or_later(self):
        legs = self.emulator["strategy"]["matrix"]["include"]
        sixteen = [leg for leg in legs if leg["target"] == "google_apis_ps16k"]
        self.assertEqual(len(sixteen), 1)
        self.assertGreaterEqual(int(sixteen[0]["api-level"]), 35)
        self.assertEqual(sixteen[0]["page-size"], 16384)
        runner = next(s for s in self.emulator["steps"] if "android-emulator-runner" in s.get("uses", ""))
        self.assertIn("getconf PAGE_SIZE", runner["with"]["script"])
        self.assertIn("-no-snapshot", runner["with"]["emulator-options"].split())
        self.assertIn(":kotlin-sample:connectedDebugAndroidTest", runner["with"]["script"])

    def test_emulator_legs_reuse_the_build_jobs_artifacts(self):
        self.assertEqual(self.emulator["needs"], "build")
        downloads = [s for s in self.emulator["steps"] if "download-artifact" in s.get("uses", "")]
        self.assertEqual([d["with"]["name"] for d in downloads], ["linekit-native"])
        uploads = [s["with"]["name"] for s in self.build["steps"] if "upload-artifact" in s.get("uses", "")]
        self.assertIn("linekit-native", uploads)
        script = runs(self.emulator)
        for forbidden in ("cargo", "rustup", "ndk;"):
            self.assertNotIn(forbidden, script)
        gradle = [s for s in self.emulator["steps"] if "./gradlew" in s.get("run", "")]
        gradle += [s["with"] for s in self.emulator["steps"] if "android-emulator-runner" in s.get("uses", "")]
        for step in gradle:
            text = step.get("run") or step.get("script")
            self.assertIn("-Plinekit.jniLibs=dist/jniLibs -Plinekit.uniffiDir=dist/uniffi", text)


class ReleaseWorkflow(unittest.TestCase):
    def setUp(self):
        self.workflow = load("release.yml")
        self.jobs = self.workflow["jobs"]

    def test_runs_on_version_tags(self):
        self.assertEqual(self.workflow["on"], {"push": {"tags": ["v*"]}})

    def test_signs_in_memory_and_publishes_through_the_central_portal(self):
        step = next(s for s in self.jobs["android"]["steps"] if "publishToMavenCentral" in s.get("run", ""))
        env = step["env"]
        self.assertEqual(env["ORG_GRADLE_PROJECT_signingInMemoryKey"], "${{ secrets.SIGNING_KEY }}")
        self.assertEqual(env["ORG_GRADLE_PROJECT_mavenCentralUsername"], "${{ secrets.MAVEN_CENTRAL_USERNAME }}")
        self.assertIn("-Prelease deploy", runs(self.jobs["jvm"]))

    def test_nothing_is_published_before_the_suite_and_the_artifacts_checks_pass(self):
        self.assertIn("./build.sh test", runs(self.jobs["test"]))
        for job, check, publish in (
            ("android", "check_16k_alignment.py", "publishToMavenCentral"),
            ("jvm", "unzip -l", "-Prelease deploy"),
        ):
            with self.subTest(job=job):
                self.assertIn("test", self.jobs[job]["needs"])
                steps = [s.get("run", "") for s in self.jobs[job]["steps"]]
                checked = next(i for i, r in enumerate(steps) if check in r)
                published = [i for i, r in enumerate(steps) if publish in r]
                self.assertEqual(len(published), 1, "one publishing step")
                self.assertLess(checked, published[0], "the check runs before the publication")
                self.assertNotIn(publish, steps[checked], "the check's step publishes nothing")

    def test_cli_for_three_platforms(self):
        targets = {leg["target"] for leg in self.jobs["cli"]["strategy"]["matrix"]["include"]}
        self.assertEqual(targets, {"x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu", "aarch64-apple-darwin"})
        self.assertIn("-p linekit-tools --bin linekit", runs(self.jobs["cli"]))

    def test_the_github_release_attaches_aar_pom_jar_and_clis(self):
        release = self.jobs["release"]
        self.assertEqual(set(release["needs"]), {"version", "test", "cli", "android", "jvm"})
        self.assertEqual(release["permissions"], {"contents": "write"})
        self.assertIn('gh release create "$TAG"', runs(release))
        dist = runs(self.jobs["android"])
        self.assertIn('"dist/linekit-android-$VERSION.aar"', dist)
        self.assertIn('"dist/linekit-android-$VERSION.pom"', dist)
        self.assertIn("dist/", runs(self.jobs["jvm"]))


if __name__ == "__main__":
    unittest.main()
