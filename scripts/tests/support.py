"""Helpers the static tests of scripts/tests share: the checkout's root and ELF images."""

import pathlib
import struct

ROOT = pathlib.Path(__file__).resolve().parents[2]

# (ELF class, e_machine) of each Android ABI.
ABIS = {
    "arm64-v8a": (64, 183),
    "armeabi-v7a": (32, 40),
    "x86_64": (64, 62),
    "x86": (32, 3),
}


def elf_image(abi: str, align: int, loads: int = 2) -> bytes:
    """A little-endian ELF shared object header for ABI whose LOAD segments are aligned to
    ALIGN: what a linker writes for the program header table, with no sections."""
    bits, number = ABIS[abi]
    if bits == 64:
        ehsize, phentsize = 64, 56
        header = struct.pack(
            "<4sBBBBB7xHHIQQQIHHHHHH",
            b"\x7fELF", 2, 1, 1, 0, 0,
            3, number, 1, 0, ehsize, 0, 0, ehsize, phentsize, loads, 0, 0, 0,
        )
        phdrs = b"".join(
            struct.pack("<IIQQQQQQ", 1, 5, i * align, i * align, i * align, 16, 16, align)
            for i in range(loads)
        )
    else:
        ehsize, phentsize = 52, 32
        header = struct.pack(
            "<4sBBBBB7xHHIIIIIHHHHHH",
            b"\x7fELF", 1, 1, 1, 0, 0,
            3, number, 1, 0, ehsize, 0, 0, ehsize, phentsize, loads, 0, 0, 0,
        )
        phdrs = b"".join(
            struct.pack("<IIIIIIII", 1, i * align, i * align, i * align, 16, 16, 5, align)
            for i in range(loads)
        )
    return header + phdrs
