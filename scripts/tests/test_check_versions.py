"""scripts/check_versions.py passes on the checkout and fails on each kind of drift between
gradle/libs.versions.toml and the poms, on a copy of the files it reads."""

import shutil
import subprocess
import sys
import unittest
from pathlib import Path

from support import ROOT, temp_dir

CHECK = ROOT / "scripts" / "check_versions.py"
LIBRARY_POM = Path("android-bindings/android/pom.xml")
ROBOLECTRIC_POM = Path("android-bindings/android/robolectric/pom.xml")


class VersionDrift(unittest.TestCase):
    def setUp(self):
        self.root = temp_dir(self)
        files = [Path("gradle/libs.versions.toml")]
        files += [p.relative_to(ROOT) for p in ROOT.rglob("pom.xml") if "target" not in p.relative_to(ROOT).parts]
        files += [p.relative_to(ROOT) for p in (ROOT / "android-bindings/android/src/test").rglob("*.kt")]
        for rel in files:
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / rel, self.root / rel)

    def run_check(self):
        return subprocess.run(
            [sys.executable, str(CHECK), "--root", str(self.root)], capture_output=True, text=True
        )

    def edit(self, rel, old, new):
        path = self.root / rel
        text = path.read_text()
        self.assertIn(old, text)
        path.write_text(text.replace(old, new, 1))

    def assert_fails(self, expected, count=1):
        """The check fails and names EXPECTED at least COUNT times."""
        result = self.run_check()
        self.assertEqual(result.returncode, 1)
        self.assertGreaterEqual(result.stdout.count(expected), count, result.stdout)

    def test_the_checkout_has_no_drift(self):
        result = self.run_check()
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertRegex(result.stdout, r"ok: \d+ versions in \d+ poms")

    def test_a_property_that_differs_from_the_catalog_fails(self):
        self.edit(LIBRARY_POM, "<okhttp.version>5.3.2</okhttp.version>", "<okhttp.version>5.3.1</okhttp.version>")
        self.assert_fails('<okhttp.version> is 5.3.1, gradle/libs.versions.toml has okhttp = "5.3.2"')

    def test_a_catalog_bump_without_the_poms_fails(self):
        self.edit(Path("gradle/libs.versions.toml"), 'kotlin = "2.2.21"', 'kotlin = "2.3.0"')
        # Every pom that carries kotlin.version is named.
        self.assert_fails("<kotlin.version> is 2.2.21", count=3)

    def test_a_literal_version_of_a_catalog_group_fails(self):
        self.edit(ROBOLECTRIC_POM, "<version>${junit4.version}</version>", "<version>4.13.2</version>")
        self.assert_fails("junit:junit has version 4.13.2")

    def test_a_library_on_the_wrong_property_fails(self):
        self.edit(LIBRARY_POM, "<artifactId>jna</artifactId>\n      <version>${jna.version}</version>",
                  "<artifactId>jna</artifactId>\n      <version>${okhttp.version}</version>")
        self.assert_fails("net.java.dev.jna:jna resolves to 5.3.2")

    def test_maven_and_gradle_compile_against_one_api_level(self):
        self.edit(Path("gradle/libs.versions.toml"), 'compileSdk = "36"', 'compileSdk = "35"')
        self.assert_fails("android-all is API 36 but compileSdk is 35")

    def test_robolectric_tests_ask_for_the_framework_maven_provides(self):
        test = next((self.root / "android-bindings/android/src/test").rglob("LineKitAndroidTest.kt"))
        self.edit(test.relative_to(self.root), "@Config(sdk = [34])", "@Config(sdk = [35])")
        self.assert_fails("@Config(sdk = [35]) but Robolectric's framework jar (android-all-robolectric) is API 34")


if __name__ == "__main__":
    unittest.main()
