package dev.linekit

/**
 * An error of the engine, raised by [LineKit]'s calls and by [LineKit.Builder.build]: the
 * engine was closed ([Closed]), an argument was unusable ([InvalidArgument], e.g. an
 * unknown business line), and so on.
 *
 * A checked exception for Java: every method that can raise it declares it
 * (`@Throws(LineKitException::class)`), so Java code writes `catch (LineKitException e)`.
 * The kinds are the native engine's error kinds, one subclass each, with the engine's
 * message (never config content, keys or URLs).
 */
sealed class LineKitException(message: String, cause: Throwable?) : Exception(message, cause) {
    /** The configuration is invalid (every problem with its field path). */
    class InvalidConfig @JvmOverloads constructor(message: String, cause: Throwable? = null) : LineKitException(message, cause)

    /** A remote config was rejected. */
    class ConfigRejected @JvmOverloads constructor(message: String, cause: Throwable? = null) : LineKitException(message, cause)

    /** The sealed config could not be opened (wrong key, tampered or malformed). */
    class Seal @JvmOverloads constructor(message: String, cause: Throwable? = null) : LineKitException(message, cause)

    /** An argument was invalid, e.g. an unknown business line. */
    class InvalidArgument @JvmOverloads constructor(message: String, cause: Throwable? = null) : LineKitException(message, cause)

    /** An HTTPDNS answer was unusable. */
    class Dns @JvmOverloads constructor(message: String, cause: Throwable? = null) : LineKitException(message, cause)

    /** A storage file could not be read or written. */
    class Store @JvmOverloads constructor(message: String, cause: Throwable? = null) : LineKitException(message, cause)

    /** The engine was closed ([LineKit.close]). */
    class Closed @JvmOverloads constructor(message: String, cause: Throwable? = null) : LineKitException(message, cause)

    internal companion object {
        /** The message of every call on a closed engine. */
        const val CLOSED: String = "the LineKit engine is closed"

        /**
         * The public form of an error of the generated bindings, keeping its message and the
         * original as the cause: the subclass of the same name ([ofKind]).
         */
        fun of(e: dev.linekit.ffi.LineKitException): LineKitException =
            ofKind(e.javaClass.simpleName, e.message ?: e.javaClass.simpleName, e)

        /**
         * The public error of kind [kind] (a native error kind's name, which is the name of
         * its subclass here; the JNI start reports errors by it) with [message]. A JVM test
         * fails while a kind of the native error enum has no subclass here.
         */
        fun ofKind(kind: String?, message: String, cause: Throwable? = null): LineKitException = when (kind) {
            "InvalidConfig" -> InvalidConfig(message, cause)
            "ConfigRejected" -> ConfigRejected(message, cause)
            "Seal" -> Seal(message, cause)
            "InvalidArgument" -> InvalidArgument(message, cause)
            "Dns" -> Dns(message, cause)
            "Store" -> Store(message, cause)
            "Closed" -> Closed(message, cause)
            else -> throw IllegalStateException("linekit: unknown error kind $kind: $message", cause)
        }

        /** Runs [block], raising the bindings' errors in their public form. */
        inline fun <R> translating(block: () -> R): R = try {
            block()
        } catch (e: dev.linekit.ffi.LineKitException) {
            throw of(e)
        }
    }
}
