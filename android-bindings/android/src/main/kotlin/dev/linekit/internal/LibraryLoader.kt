package dev.linekit.internal

import java.io.File
import java.nio.file.Files
import java.nio.file.StandardCopyOption

/**
 * Loads `liblinekit` for the JNI path ([NativeStart], [NativeFast], [NativeDns]) without
 * JNA, and makes the UniFFI bindings, which JNA loads later, use the very same file: two
 * bridges into one library must share one copy of it, since handles made by one copy
 * mean nothing to another.
 *
 * The file is the one for the name the generated bindings load (`linekit`, or the name
 * or path in `uniffi.component.linekit.libraryOverride`): an absolute override path as
 * it is; else the first found in `jna.library.path`, `java.library.path`, then the
 * classpath, where the `dev.linekit:linekit-jvm` jar
 * carries it as `<os>-<arch>/liblinekit.so` (JNA's resource prefix, e.g. `linux-x86-64`)
 * and it is copied to a temporary file (a classpath directory's file is used as it is). A file found so is loaded with `System.load`, and
 * its absolute path becomes the override of both generated components (`linekit`,
 * `linekit_core`) unless the app set one, so JNA opens that file too. Where no file is
 * found (Android, where the platform's linker finds the library in the APK), the library
 * is loaded by name and JNA asks the platform by the same name, which hands back the
 * library already loaded.
 */
internal object LibraryLoader {
    /** The generated UniFFI components, each with its own override property. */
    private val components = listOf("linekit", "linekit_core")

    private fun overrideKey(component: String) = "uniffi.component.$component.libraryOverride"

    private val load: Unit by lazy {
        val override = System.getProperty(overrideKey("linekit"))
        val name = override?.takeUnless { File(it).isAbsolute } ?: "linekit"
        val file = override?.let(::File)?.takeIf { it.isAbsolute } ?: find(name)
        if (file == null) {
            System.loadLibrary(name)
        } else {
            System.load(file.absolutePath)
            for (c in components) {
                if (System.getProperty(overrideKey(c)) == null) System.setProperty(overrideKey(c), file.absolutePath)
            }
        }
    }

    /** The library file JNA would open for [name] off Android, or null. */
    private fun find(name: String): File? {
        val fileName = System.mapLibraryName(name)
        val dirs = listOf("jna.library.path", "java.library.path")
            .mapNotNull { System.getProperty(it) }
            .flatMap { it.split(File.pathSeparator) }
            .filter { it.isNotEmpty() }
        dirs.map { File(it, fileName) }.firstOrNull { it.isFile }?.let { return it }
        return fromClasspath(fileName)
    }

    /**
     * The library the classpath carries under JNA's resource prefix: the file itself when
     * the classpath entry is a directory, else a copy in a temporary file (as JNA does).
     */
    private fun fromClasspath(fileName: String): File? {
        val loader = LibraryLoader::class.java.classLoader ?: return null
        val url = loader.getResource("${com.sun.jna.Platform.RESOURCE_PREFIX}/$fileName") ?: return null
        if (url.protocol == "file") return File(url.toURI())
        val input = url.openStream()
        val dot = fileName.lastIndexOf('.')
        val file = Files.createTempFile(fileName.substring(0, dot), fileName.substring(dot)).toFile()
        file.deleteOnExit()
        input.use { Files.copy(it, file.toPath(), StandardCopyOption.REPLACE_EXISTING) }
        return file
    }

    /** Loads the library for JNI once per process; later calls return at once. */
    fun loadForJni() = load
}
