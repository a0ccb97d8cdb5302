package dev.linekit.internal

import com.sun.jna.Library
import com.sun.jna.NativeLibrary

/**
 * Loads `liblinekit` for the JNI path ([NativeFast], [NativeDns]) from the very file JNA
 * loaded, or will load, for the UniFFI bindings. Two bridges into one library must share
 * one copy of it: handles made by one copy mean nothing to another.
 *
 * JNA finds the library by the name the generated bindings register (`linekit`, or the
 * path in `uniffi.component.linekit.libraryOverride`): `jna.library.path`, then the
 * system's search, then the classpath, where the `dev.linekit:linekit-jvm` jar carries it
 * as `<os>-<arch>/liblinekit.so` (JNA's resource prefix, e.g. `linux-x86-64`) and JNA
 * extracts it to a temporary file. Asking JNA here with the options the bindings' direct
 * mapping uses (`Native.register`: only the class loader) returns JNA's cached instance,
 * whichever side loads first. When JNA opened the library by name (Android, where the
 * platform's linker finds it in the APK), the JNI side asks the platform by name too.
 */
internal object LibraryLoader {
    /** The name the generated UniFFI bindings load the library by. */
    private val name: String
        get() = System.getProperty("uniffi.component.linekit.libraryOverride") ?: "linekit"

    private val load: Unit by lazy {
        val library = NativeLibrary.getInstance(
            name,
            mapOf(Library.OPTION_CLASSLOADER to LibraryLoader::class.java.classLoader),
        )
        val file = library.file
        if (file != null && file.isAbsolute) System.load(file.path) else System.loadLibrary("linekit")
    }

    /** Loads the library for JNI once per process; later calls return at once. */
    fun loadForJni() = load
}
