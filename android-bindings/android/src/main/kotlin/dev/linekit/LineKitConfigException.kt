package dev.linekit

/**
 * One problem of the app's own config: [source][dev.linekit.ffi.ConfigFieldError.source]
 * (`remote` for [LineKit.Builder.configJson], `sealed` for the sealed asset), a field
 * [path][dev.linekit.ffi.ConfigFieldError.path] such as `biz_lines.spot.http[1].url`
 * (empty for the whole document) and the [error][dev.linekit.ffi.ConfigFieldError.error].
 * Declared once, in the Rust bindings.
 */
typealias ConfigError = dev.linekit.ffi.ConfigFieldError

/**
 * Thrown by [LineKit.Builder.build] when the app's own config ([LineKit.Builder.configJson]
 * or [LineKit.Builder.sealedConfig]) fails validation, unless the builder was told
 * [LineKit.Builder.fallbackOnInvalidConfig]. [errors] lists every problem with its path;
 * the message lists them too (paths and reasons only, never config content or keys).
 */
class LineKitConfigException(
    /** Every problem found, in document order per source. */
    val errors: List<ConfigError>,
) : IllegalArgumentException(
    "invalid app config: " + errors.joinToString("; ") { e ->
        val where = if (e.path.isEmpty()) e.source else "${e.source} ${e.path}"
        "$where: ${e.error}"
    },
)
