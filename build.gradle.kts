// Root of the Gradle build (Android users; see settings.gradle.kts).
// AGP 9 compiles Kotlin itself ("built-in Kotlin"): no org.jetbrains.kotlin.android plugin,
// which AGP 9 rejects. Raising the Kotlin Gradle plugin on the build script classpath is the
// documented way to use a newer Kotlin than AGP's own dependency
// (developer.android.com/build/migrate-to-built-in-kotlin).
buildscript {
    dependencies {
        classpath(libs.kotlin.gradle.plugin)
    }
}

plugins {
    alias(libs.plugins.android.library) apply false
    alias(libs.plugins.android.application) apply false
}
