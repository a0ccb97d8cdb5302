@file:JvmName("LineKitAndroidConfig")

package dev.linekit.android

import android.content.Context
import dev.linekit.LineKit
import java.io.File

/** Sub-directory of `Context.getFilesDir()` where Linekit keeps its state by default. */
const val LINEKIT_STORAGE_DIR: String = "linekit"

/**
 * Uses the sealed config shipped as the asset [assetName] (the output of
 * `linekit config seal`: base64 text of AES-256-GCM) with its 32-byte [key].
 *
 * The key ships inside the app, so sealing is obfuscation (it keeps line hosts out of a
 * casual `unzip`), not secrecy.
 *
 * @throws java.io.IOException if the asset cannot be read (a wrong name is a build error,
 *   so it is not silently skipped like an unusable config).
 */
@Throws(java.io.IOException::class)
fun LineKit.Builder.sealedConfigAsset(context: Context, assetName: String, key: ByteArray): LineKit.Builder {
    val bytes = context.assets.open(assetName).use { it.readBytes() }
    return sealedConfig(bytes, key)
}

/** Keeps Linekit's state in [lineKitStorageDir] (`filesDir/linekit`, created if needed). */
fun LineKit.Builder.defaultStorage(context: Context): LineKit.Builder = storageDir(lineKitStorageDir(context))

/**
 * `Context.getFilesDir()/linekit`, created if missing. Should it be impossible to create
 * (full or broken storage), the directory is returned anyway: the core then runs without
 * persistence instead of failing the app's start.
 */
fun lineKitStorageDir(context: Context): File {
    val dir = File(context.filesDir, LINEKIT_STORAGE_DIR)
    if (!dir.isDirectory && !dir.mkdirs()) {
        android.util.Log.w(LineKitAndroid.TAG, "could not create the Linekit storage directory")
    }
    return dir
}
