"""Helpers the static tests of scripts/tests share: the checkout's root, a temporary
directory per test and ELF images."""

import pathlib
import shutil
import struct
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def temp_dir(test: unittest.TestCase) -> pathlib.Path:
    """A new empty directory, deleted when TEST ends."""
    path = pathlib.Path(tempfile.mkdtemp())
    test.addCleanup(shutil.rmtree, path)
    return path

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
    # ELF64 and ELF32 differ in field widths, sizes and where p_flags sits in a header.
    header_format, phdr_format, ehsize, phentsize = {
        64: ("<4sBBBBB7xHHIQQQIHHHHHH", "<IIQQQQQQ", 64, 56),
        32: ("<4sBBBBB7xHHIIIIIHHHHHH", "<IIIIIIII", 52, 32),
    }[bits]
    header = struct.pack(
        header_format,
        b"\x7fELF", 2 if bits == 64 else 1, 1, 1, 0, 0,
        3, number, 1, 0, ehsize, 0, 0, ehsize, phentsize, loads, 0, 0, 0,
    )

    def load(offset: int) -> tuple:
        """PT_LOAD, readable and executable, 16 bytes at OFFSET."""
        if bits == 64:
            return (1, 5, offset, offset, offset, 16, 16, align)
        return (1, offset, offset, offset, 16, 16, 5, align)

    phdrs = b"".join(struct.pack(phdr_format, *load(i * align)) for i in range(loads))
    return header + phdrs
