package dev.linekit

import okhttp3.MediaType
import okhttp3.Response
import okhttp3.ResponseBody
import okio.Buffer
import okio.BufferedSource
import okio.ForwardingSource
import okio.buffer
import java.io.IOException
import java.util.concurrent.atomic.AtomicBoolean

/**
 * A response body handed to the app as it streams, that tells [onFailure] (once) when
 * reading it fails — a reset, a stall, a cut-off body — so the failure still reaches the
 * line's statistics after the interceptor returned. Closing it early is not a failure.
 */
internal class WatchedBody private constructor(
    private val delegate: ResponseBody,
    onFailure: (IOException) -> Unit,
) : ResponseBody() {
    private val source: BufferedSource = Watching(delegate.source(), onFailure).buffer()

    override fun contentType(): MediaType? = delegate.contentType()

    override fun contentLength(): Long = delegate.contentLength()

    override fun source(): BufferedSource = source

    override fun close() {
        source.close()
    }

    private class Watching(source: okio.Source, private val onFailure: (IOException) -> Unit) : ForwardingSource(source) {
        private val reported = AtomicBoolean(false)

        override fun read(sink: Buffer, byteCount: Long): Long = try {
            super.read(sink, byteCount)
        } catch (e: IOException) {
            if (reported.compareAndSet(false, true)) onFailure(e)
            throw e
        }
    }

    companion object {
        /** [response] with its body watched. */
        fun wrap(response: Response, onFailure: (IOException) -> Unit): Response =
            response.newBuilder().body(WatchedBody(response.body, onFailure)).build()
    }
}
