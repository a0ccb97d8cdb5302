"""The library module builds inside an app's Gradle build that knows nothing of Linekit.

Nothing here runs Gradle (there is none on these machines): a minimal consumer build — a
settings.gradle.kts that includes android-bindings/android as `:linekit` and a
build.gradle.kts that declares only the Android Gradle plugin — is written to a temporary
directory, and the module's build file is read against it: it must use no version catalog
accessor, request its plugins without a version and only from what the consumer declares,
declare no repositories, reach no other project, and take every version from
gradle/libs.versions.toml of its own checkout, whose keys must exist."""

import re
import tomllib
import unittest
from pathlib import Path

from support import ROOT, temp_dir

MODULE = ROOT / "android-bindings" / "android"
BUILD = MODULE / "build.gradle.kts"
# Plugin ids the com.android.tools.build:gradle artifact provides: a build that declares one
# has them all on its classpath.
AGP_PLUGINS = {"com.android.application", "com.android.library"}

CONSUMER_SETTINGS = """\
pluginManagement {{
    repositories {{
        google()
        mavenCentral()
        gradlePluginPortal()
    }}
}}
dependencyResolutionManagement {{
    repositoriesMode.set(RepositoriesMode.FAIL_ON_PROJECT_REPOS)
    repositories {{
        google()
        mavenCentral()
    }}
}}
rootProject.name = "consumer"
include(":app")
include(":linekit")
project(":linekit").projectDir = file("{module}")
"""
CONSUMER_BUILD = """\
plugins {
    id("com.android.application") version "9.2.1" apply false
}
"""


def code_of(script: str) -> str:
    """SCRIPT without comments and string contents: only what Gradle evaluates as code."""
    script = re.sub(r'"""(?:.|\n)*?"""', '""', script)
    script = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', script)
    script = re.sub(r"/\*(?:.|\n)*?\*/", "", script)
    return re.sub(r"//[^\n]*", "", script)


def plugins_block(script: str) -> str:
    match = re.search(r"^plugins\s*\{(.*?)^\}", script, re.S | re.M)
    return match.group(1) if match else ""


class GradleConsumer(unittest.TestCase):
    def setUp(self):
        self.consumer = temp_dir(self)
        (self.consumer / "settings.gradle.kts").write_text(CONSUMER_SETTINGS.format(module=MODULE))
        (self.consumer / "build.gradle.kts").write_text(CONSUMER_BUILD)
        (self.consumer / "app").mkdir()
        self.script = BUILD.read_text()
        self.code = code_of(self.script)

    def included_module(self) -> Path:
        settings = (self.consumer / "settings.gradle.kts").read_text()
        return Path(re.search(r'project\(":linekit"\)\.projectDir = file\("([^"]+)"\)', settings).group(1))

    def consumer_plugins(self) -> set[str]:
        declared = set(re.findall(r'id\("([^"]+)"\)', (self.consumer / "build.gradle.kts").read_text()))
        return AGP_PLUGINS if declared & AGP_PLUGINS else declared

    def test_the_consumer_includes_this_module(self):
        self.assertEqual(self.included_module().resolve(), MODULE.resolve())
        self.assertTrue((self.included_module() / "build.gradle.kts").is_file())
        self.assertFalse((self.consumer / "gradle" / "libs.versions.toml").exists())

    def test_no_version_catalog_accessor(self):
        self.assertIsNone(re.search(r"\blibs\.", self.code), "the consumer has no `libs` catalog")
        self.assertNotIn("versionCatalogs", self.code)

    def test_plugins_are_the_consumers_and_carry_no_version(self):
        block = plugins_block(self.code)
        requested = re.findall(r'id\("([^"]+)"\)', plugins_block(self.script))
        self.assertTrue(requested, "the module applies the Android library plugin")
        self.assertNotIn("version", block)
        self.assertNotIn("alias(", block)
        self.assertLessEqual(set(requested), self.consumer_plugins())
        self.assertIsNone(re.search(r"\bapply\s*\(\s*plugin", self.code))
        self.assertIsNone(re.search(r"pluginManager\.apply", self.code))

    def test_no_repository_and_no_other_project(self):
        # FAIL_ON_PROJECT_REPOS: a repository declared by the module fails the consumer's build.
        self.assertIsNone(re.search(r"\brepositories\s*\{", self.code))
        self.assertIsNone(re.search(r"\brootProject\b", self.code))
        self.assertIsNone(re.search(r'\bproject\s*\(\s*"', self.code))
        self.assertIsNone(re.search(r"\bsubprojects\b|\ballprojects\b", self.code))

    def test_every_version_comes_from_the_catalog_of_the_checkout(self):
        with open(ROOT / "gradle" / "libs.versions.toml", "rb") as f:
            versions = tomllib.load(f)["versions"]
        keys = set(re.findall(r'\bcatalogVersion\("([^"]+)"\)', self.script))
        self.assertTrue(keys)
        self.assertLessEqual(keys, set(versions), "keys the catalog does not declare")
        self.assertIn('cargoWorkspace.file("gradle/libs.versions.toml")', self.script)
        # Dependencies name no version literal of their own.
        for notation in re.findall(r'(?:api|implementation|testImplementation)\("([^"]+)"\)', self.script):
            self.assertRegex(notation, r":\$\{catalogVersion\(", notation)

    def test_every_workspace_path_exists_in_the_checkout(self):
        workspace = (MODULE / ".." / "..").resolve()
        paths = re.findall(r'cargoWorkspace\.(?:file|dir)\("([^"]+)"\)', self.script)
        self.assertIn("rust-toolchain.toml", paths)
        self.assertIn("scripts/release-flags.sh", paths)
        self.assertIn("scripts/release-discard.ld", paths)
        self.assertIn("scripts/release-hide-async.ver", paths)
        # The cargo target directory is the build's output: a clean checkout has none yet.
        self.assertIn("target", paths)
        for rel in (p for p in paths if p != "target"):
            self.assertTrue((workspace / rel).exists(), rel)
        for rel in re.findall(r'layout\.projectDirectory\.(?:file|dir)\("([^"]+)"\)', self.script):
            self.assertTrue((MODULE / rel).exists(), rel)


if __name__ == "__main__":
    unittest.main()
