#!/usr/bin/env python3
"""Fails when a Maven pom disagrees with gradle/libs.versions.toml, the one place for versions.

    scripts/check_versions.py [--root DIR]

A pom cannot read the catalog (Maven fixes dependency and plugin versions while it builds the
model, before any plugin could load a file), so each pom carries the catalog's versions as
properties and this check holds them equal:
- a property `KEY.version` whose KEY (dots read as dashes) names a catalog version must have
  that version;
- every dependency, plugin or copied artifact of a group the catalog versions (the groups of
  its [libraries]) takes its version from such a property (directly or through another
  property), never a literal; one that is a catalog library must resolve to its version;
- the framework jar Maven compiles against (`android-all`) is the API level of `compileSdk`,
  and the one Robolectric runs on (`android-all-robolectric`) the level every Robolectric
  test asks for with `@Config(sdk = [N])`.
Prints one line per problem and exits 1, or a summary and exits 0.
"""

import argparse
import pathlib
import re
import sys
import tomllib
import xml.etree.ElementTree as ET

NS = {"m": "http://maven.apache.org/POM/4.0.0"}
PROPERTY = re.compile(r"\$\{([^}]+)\}")
# Android version of an android-all jar (its version's first part) -> API level.
ANDROID_API = {"13": 33, "14": 34, "15": 35, "16": 36, "17": 37}


def catalog_key(prop: str):
    """The catalog version a pom property stands for (`android.all.version` -> `android-all`)."""
    return prop[: -len(".version")].replace(".", "-") if prop.endswith(".version") else None


def coordinates(root):
    """(groupId, artifactId, version element text) of everything in a pom that names a version."""
    for element in root.iter():
        tag = element.tag.split("}")[-1]
        if tag not in ("dependency", "plugin", "artifactItem", "path"):
            continue
        group = element.findtext("m:groupId", namespaces=NS)
        artifact = element.findtext("m:artifactId", namespaces=NS)
        version = element.findtext("m:version", namespaces=NS)
        if group and artifact and version:
            yield group.strip(), artifact.strip(), version.strip()


def resolve(value: str, props: dict, depth: int = 0) -> str:
    if depth > 5:
        return value
    return PROPERTY.sub(lambda m: resolve(props.get(m.group(1), m.group(0)), props, depth + 1), value)


def catalog_backed(value: str, props: dict, versions: dict, depth: int = 0) -> bool:
    """Whether VALUE takes its version from a catalog property, directly or through another."""
    for name in PROPERTY.findall(value):
        if catalog_key(name) in versions:
            return True
        if depth < 5 and name in props and catalog_backed(props[name], props, versions, depth + 1):
            return True
    return False


def check(root: pathlib.Path) -> list[str]:
    with open(root / "gradle" / "libs.versions.toml", "rb") as f:
        catalog = tomllib.load(f)
    versions = catalog["versions"]
    libraries = {}
    for lib in catalog.get("libraries", {}).values():
        ref = lib.get("version", {})
        libraries[lib["module"]] = versions[ref["ref"]] if isinstance(ref, dict) else ref
    groups = {module.split(":")[0] for module in libraries}
    problems, checked = [], 0
    poms = sorted(p for p in root.rglob("pom.xml") if "target" not in p.relative_to(root).parts)
    for pom in poms:
        where = pom.relative_to(root)
        tree = ET.parse(pom).getroot()
        props = {
            child.tag.split("}")[-1]: (child.text or "").strip()
            for child in tree.findall("m:properties/*", NS)
        }
        for name, value in props.items():
            key = catalog_key(name)
            if key in versions:
                checked += 1
                if resolve(value, props) != versions[key]:
                    problems.append(
                        f"{where}: <{name}> is {value}, gradle/libs.versions.toml has {key} = \"{versions[key]}\""
                    )
        for group, artifact, version in coordinates(tree):
            if group not in groups:
                continue
            checked += 1
            module = f"{group}:{artifact}"
            if not catalog_backed(version, props, versions):
                problems.append(
                    f"{where}: {module} has version {version}: gradle/libs.versions.toml versions "
                    f"{group}, so take it from a <KEY.version> property of a catalog version"
                )
            elif module in libraries and resolve(version, props) != libraries[module]:
                problems.append(
                    f"{where}: {module} resolves to {resolve(version, props)}, the catalog's {module} is {libraries[module]}"
                )
    problems += check_api_levels(root, versions)
    if not problems:
        print(f"ok: {checked} versions in {len(poms)} poms match gradle/libs.versions.toml")
    return problems


def api_level(versions: dict, key: str, problems: list):
    android = versions.get(key, "").split("-")[0]
    if android not in ANDROID_API:
        problems.append(f"gradle/libs.versions.toml: {key} = \"{versions.get(key)}\" is no android-all version this check knows")
        return None
    return ANDROID_API[android]


def check_api_levels(root: pathlib.Path, versions: dict) -> list[str]:
    problems = []
    compile_api = api_level(versions, "android-all", problems)
    if compile_api is not None and str(compile_api) != versions.get("compileSdk"):
        problems.append(
            f"gradle/libs.versions.toml: android-all is API {compile_api} but compileSdk is {versions.get('compileSdk')}:"
            " Maven and Gradle must compile against the same API level"
        )
    run_api = api_level(versions, "android-all-robolectric", problems)
    tests = root / "android-bindings" / "android" / "src" / "test"
    for source in sorted(tests.rglob("*.kt")):
        for sdk in re.findall(r"@Config\([^)]*sdk\s*=\s*\[\s*(\d+)", source.read_text()):
            if run_api is not None and int(sdk) != run_api:
                problems.append(
                    f"{source.relative_to(root)}: @Config(sdk = [{sdk}]) but Robolectric's framework jar"
                    f" (android-all-robolectric) is API {run_api}"
                )
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parents[1])
    problems = check(parser.parse_args(argv).root)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
