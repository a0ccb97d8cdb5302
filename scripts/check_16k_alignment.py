#!/usr/bin/env python3
"""Checks that native libraries work on devices with 16 KB memory pages.

Android 15+ devices may use 16 KB pages; a shared library whose PT_LOAD segments are aligned
to less than 16 KB does not load there. Usage:

    scripts/check_16k_alignment.py FILE...

Each FILE is an .so, or an archive (.aar, .apk, .aab, .zip) whose every *.so entry is checked
(an AAR keeps them under jni/<abi>/, an APK under lib/<abi>/). Prints one line per library and
exits 1 if any library is misaligned, is not ELF, or if no library was found at all. Reads the
ELF program headers itself (32/64-bit, either byte order), so it needs no NDK tool.
"""

import struct
import sys
import zipfile

PAGE = 16 * 1024
PT_LOAD = 1
# e_machine of the four Android ABIs (and their Linux stand-ins).
MACHINES = {3: "x86", 40: "arm", 62: "x86_64", 183: "aarch64"}


def machine(data: bytes) -> str:
    """The architecture an ELF image is for, as a short name."""
    order = "<" if data[5] == 1 else ">"
    number, = struct.unpack_from(order + "H", data, 0x12)
    return MACHINES.get(number, f"machine {number}")


def load_alignments(data: bytes) -> list[int]:
    """The p_align of every PT_LOAD segment of an ELF image."""
    if data[:4] != b"\x7fELF" or len(data) < 52:
        raise ValueError("not an ELF file")
    is64 = data[4] == 2
    order = "<" if data[5] == 1 else ">"
    if is64:
        phoff, = struct.unpack_from(order + "Q", data, 0x20)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 0x36)
    else:
        phoff, = struct.unpack_from(order + "I", data, 0x1C)
        phentsize, phnum = struct.unpack_from(order + "HH", data, 0x2A)
    if phoff + phentsize * phnum > len(data):
        raise ValueError("truncated program header table")
    aligns = []
    for i in range(phnum):
        off = phoff + i * phentsize
        p_type, = struct.unpack_from(order + "I", data, off)
        if p_type != PT_LOAD:
            continue
        # p_align is the last field of a program header in both layouts.
        fmt, at = ("Q", off + 0x30) if is64 else ("I", off + 0x1C)
        aligns.append(struct.unpack_from(order + fmt, data, at)[0])
    return aligns


def libraries(path: str):
    """(name, bytes) of every shared library in path."""
    if path.endswith(".so"):
        with open(path, "rb") as f:
            yield path, f.read()
        return
    with zipfile.ZipFile(path) as z:
        for name in sorted(z.namelist()):
            if name.endswith(".so"):
                yield f"{path}!{name}", z.read(name)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    checked, bad = 0, 0
    for path in argv:
        try:
            found = list(libraries(path))
        except (OSError, zipfile.BadZipFile) as e:
            print(f"FAIL {path}: {e}")
            return 1
        for name, data in found:
            checked += 1
            try:
                aligns = load_alignments(data)
            except (ValueError, struct.error) as e:
                print(f"FAIL {name}: {e}")
                bad += 1
                continue
            arch = machine(data)
            low = [a for a in aligns if a < PAGE]
            if low or not aligns:
                shown = ", ".join(hex(a) for a in aligns) or "no LOAD segment"
                print(f"FAIL {name} ({arch}): LOAD alignment {shown} (needs >= {hex(PAGE)})")
                bad += 1
            else:
                print(f"ok   {name} ({arch}): LOAD alignment {', '.join(hex(a) for a in aligns)}")
    if checked == 0:
        print("no .so found in " + " ".join(argv), file=sys.stderr)
        return 1
    print(f"{checked - bad}/{checked} libraries aligned for 16 KB pages")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
