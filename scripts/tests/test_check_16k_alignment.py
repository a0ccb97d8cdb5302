"""scripts/check_16k_alignment.py fails a library aligned for 4 KB pages, whatever its ABI,
alone or inside an AAR/APK, and passes one aligned for 16 KB."""

import shutil
import subprocess
import sys
import unittest
import zipfile
from pathlib import Path

from support import ABIS, ROOT, elf_image, temp_dir

CHECK = ROOT / "scripts" / "check_16k_alignment.py"


def check(*paths):
    return subprocess.run(
        [sys.executable, str(CHECK), *map(str, paths)], capture_output=True, text=True
    )


class AlignmentCheck(unittest.TestCase):
    def setUp(self):
        self.dir = temp_dir(self)

    def write(self, name, data):
        path = self.dir / name
        path.write_bytes(data)
        return path

    def test_every_abi_fails_at_4k_and_passes_at_16k(self):
        for abi in ABIS:
            with self.subTest(abi=abi):
                low = check(self.write(f"{abi}-4k.so", elf_image(abi, 0x1000)))
                self.assertEqual(low.returncode, 1, low.stdout)
                self.assertIn("FAIL", low.stdout)
                self.assertIn("0x1000", low.stdout)
                high = check(self.write(f"{abi}-16k.so", elf_image(abi, 0x4000)))
                self.assertEqual(high.returncode, 0, high.stdout)
                self.assertIn("1/1 libraries aligned", high.stdout)

    def test_one_low_segment_fails_the_library(self):
        data = bytearray(elf_image("armeabi-v7a", 0x4000))
        # The second program header's p_align (the last 4 bytes of a 32-bit header).
        data[52 + 2 * 32 - 4 : 52 + 2 * 32] = (0x1000).to_bytes(4, "little")
        result = check(self.write("mixed.so", bytes(data)))
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("0x4000, 0x1000", result.stdout)

    def test_an_archive_fails_on_its_one_32_bit_library(self):
        aar = self.dir / "lib.aar"
        with zipfile.ZipFile(aar, "w") as z:
            z.writestr("jni/arm64-v8a/liblinekit.so", elf_image("arm64-v8a", 0x4000))
            z.writestr("jni/x86_64/liblinekit.so", elf_image("x86_64", 0x4000))
            z.writestr("jni/armeabi-v7a/liblinekit.so", elf_image("armeabi-v7a", 0x1000))
            z.writestr("jni/x86/liblinekit.so", elf_image("x86", 0x4000))
            z.writestr("classes.jar", b"")
        result = check(aar)
        self.assertEqual(result.returncode, 1, result.stdout)
        failed = [line for line in result.stdout.splitlines() if line.startswith("FAIL")]
        self.assertEqual(len(failed), 1, result.stdout)
        self.assertIn("jni/armeabi-v7a/liblinekit.so (arm)", failed[0])
        self.assertIn("3/4 libraries aligned", result.stdout)

    def test_not_elf_and_nothing_found_fail(self):
        self.assertEqual(check(self.write("text.so", b"not a library")).returncode, 1)
        empty = self.dir / "empty.apk"
        with zipfile.ZipFile(empty, "w") as z:
            z.writestr("classes.dex", b"")
        result = check(empty)
        self.assertEqual(result.returncode, 1)
        self.assertIn("no .so found", result.stderr)

    def test_real_links_of_both_arm_widths(self):
        """What the cross linkers write (./build.sh test installs them): 4 KB fails, 16 KB
        passes, for 64- and 32-bit ARM."""
        source = self.write("lib.c", b"int linekit_probe(int x) { return x + 1; }\n")
        for gcc in ("aarch64-linux-gnu-gcc", "arm-linux-gnueabihf-gcc"):
            if shutil.which(gcc) is None:
                self.skipTest(f"{gcc} is not installed")
            for page, status in ((4096, 1), (16384, 0)):
                with self.subTest(gcc=gcc, page=page):
                    so = self.dir / f"{gcc}-{page}.so"
                    subprocess.run(
                        [gcc, "-shared", "-fPIC", "-o", str(so), str(source),
                         f"-Wl,-z,max-page-size={page}", f"-Wl,-z,common-page-size={page}"],
                        check=True,
                    )
                    result = check(so)
                    self.assertEqual(result.returncode, status, result.stdout)


if __name__ == "__main__":
    unittest.main()
