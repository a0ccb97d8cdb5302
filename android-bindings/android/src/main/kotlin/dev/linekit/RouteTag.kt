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
 * @property mode the rollout mode the request was routed under: under
 *   [RolloutMode.OBSERVE] and [RolloutMode.OFF] the request kept its URL and is not retried.
 * @property wouldReason under [RolloutMode.OBSERVE], the reason [RolloutMode.ON] would have
 *   routed with (null under the other modes).
 * @property wouldLine under [RolloutMode.OBSERVE], the line [RolloutMode.ON] would have put
 *   the request on, if any.
 */
data class RouteTag @JvmOverloads constructor(
    val reason: RouteReason,
    val biz: String?,
    val line: String?,
    val attempt: Int,
    val excluded: List<String>,
    val versionMismatch: Boolean = false,
    val mode: RolloutMode = RolloutMode.ON,
    val wouldReason: RouteReason? = null,
    val wouldLine: String? = null,
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
 * @property mode the rollout mode the request was routed under.
 * @property wouldReason under [RolloutMode.OBSERVE], the reason [RolloutMode.ON] would have
 *   routed with (null under the other modes).
 * @property wouldLine under [RolloutMode.OBSERVE], the line [RolloutMode.ON] would have put
 *   the request on, if any.
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
    /** The final URL as the core wrote it, when the decision was asked for it ([LineKit.route]). */
    private val finalUrl: String? = null,
    /** Whether the core moved the request to another URL. */
    private val rewritten: Boolean = false,
    /** The final URL is the request URL byte for byte: the request is sent as it is. */
    internal val sameUrl: Boolean = false,
    /** The code table generation of [lineCode]. */
    internal val generation: Int = 0,
    /** The engine's code for this decision's line entry, which the attempt's report names the line by. */
    internal val lineCode: Int = 0,
    val mode: RolloutMode = RolloutMode.ON,
    val wouldReason: RouteReason? = null,
    val wouldLine: String? = null,
) {
    /** The final URL to send, as the core wrote it (equal to the input when not rewritten). */
    val url: String get() = finalUrl ?: requestUrl.also { check(!rewritten) { "linekit: a decision made without its final URL" } }

    override fun toString(): String = "RouteDecision(reason=${reason.wireName}, biz=$biz, line=$line)"
}
