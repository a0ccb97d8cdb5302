package dev.linekit

/**
 * The routing decision attached to every request Linekit rewrote or inspected:
 * `response.request.tag(RouteTag::class)`.
 *
 * @property reason why the engine routed it this way.
 * @property biz business line that owns the request, if any.
 * @property line id of the line it was put on, if any.
 * @property attempt 0 for the first attempt, 1+ for in-call retries on other lines.
 * @property excluded line ids already tried by this call before this attempt.
 * @property versionMismatch the line runs another deployment (its `version_header`
 *   fingerprint) than the one the business line was served from; see
 *   [LineKit.Builder.onVersionMismatch].
 */
data class RouteTag @JvmOverloads constructor(
    val reason: RouteReason,
    val biz: String?,
    val line: String?,
    val attempt: Int,
    val excluded: List<String>,
    val versionMismatch: Boolean = false,
)

/**
 * The engine's answer for one request (see [LineKit.route]).
 *
 * @property reason why the engine routed it this way.
 * @property line chosen line id, if the request was put on a line.
 * @property biz owning business line, if any.
 * @property versionMismatch the line's deployment fingerprint differs from the business
 *   line's reference.
 * @property versionHeader the response header whose value belongs in this attempt's report
 *   (the business line's `version_header`), if any.
 */
class RouteDecision internal constructor(
    val reason: RouteReason,
    val line: String?,
    val biz: String?,
    private val requestUrl: String,
    /** The parts that changed, or null when the URL stays as it is. */
    internal val target: dev.linekit.internal.RouteTarget?,
    /** `thresholds.max_retries` of the config that made this decision; 0 when the core's replay rule forbids sending the request again. */
    internal val maxRetries: Int,
    /** `thresholds.buffer_body_max_bytes` of the config that made this decision. */
    internal val bufferBodyMaxBytes: Long,
    val versionMismatch: Boolean = false,
    val versionHeader: String? = null,
) {
    /** The final URL to send (equal to the input when not rewritten). */
    val url: String get() = target?.urlOf(requestUrl) ?: requestUrl

    override fun toString(): String = "RouteDecision(reason=${reason.wireName}, biz=$biz, line=$line)"
}
