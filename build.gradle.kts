// Root of the Gradle build (Android users; see settings.gradle.kts).
// AGP 9 compiles Kotlin itself ("built-in Kotlin"): no org.jetbrains.kotlin.android plugin,
// which AGP 9 rejects. Raising the Kotlin Gradle plugin on the build script classpath is
// AGP's supported way to use a newer Kotlin than its own dependency.
//
// Publishing of the library module lives here, not in android-bindings/android/build.gradle.kts,
// so that an app including that module from source needs neither plugin nor any of these
// settings. It uses com.vanniktech.maven.publish, the usual way Kotlin and Android libraries
// reach Maven Central: it uploads through the Central Portal's publisher API (the only route
// since OSSRH closed; plain maven-publish cannot), signs every publication with an in-memory
// PGP key from Gradle properties, creates the single-variant AAR publication with sources and
// a javadoc jar made by Dokka, and checks the POM fields Central requires.
import com.vanniktech.maven.publish.AndroidSingleVariantLibrary
import com.vanniktech.maven.publish.JavadocJar
import com.vanniktech.maven.publish.MavenPublishBaseExtension
import com.vanniktech.maven.publish.SourcesJar

buildscript {
    dependencies {
        classpath(libs.kotlin.gradle.plugin)
    }
}

plugins {
    alias(libs.plugins.android.library) apply false
    alias(libs.plugins.android.application) apply false
    alias(libs.plugins.vanniktech.publish) apply false
    alias(libs.plugins.dokka) apply false
}

// The version lives in one place: [workspace.package] of the root Cargo.toml (the .so and the
// AAR always carry the same number).
val linekitVersion: String = providers.fileContents(layout.projectDirectory.file("Cargo.toml")).asText.map { toml ->
    val section = toml.substringAfter("[workspace.package]", "")
    Regex("""(?m)^version\s*=\s*"([^"]+)"""").find(section)?.groupValues?.get(1)
        ?: error("no version in [workspace.package] of Cargo.toml")
}.get()

// The public repository (POM url, scm, developer): one property in gradle.properties.
val projectUrl: Provider<String> = providers.gradleProperty("linekit.url")

// Signing needs the key; without it (a pull request, publishToMavenLocal) nothing is signed.
// The release workflow passes it as ORG_GRADLE_PROJECT_signingInMemoryKey.
val signingKey: Provider<String> = providers.gradleProperty("signingInMemoryKey")

project(":android-bindings") {
    pluginManager.withPlugin("com.android.library") {
        // Dokka 2 (AGP 9 built-in Kotlin support since 2.2): the javadoc jar holds its HTML.
        pluginManager.apply("org.jetbrains.dokka")
        pluginManager.apply("com.vanniktech.maven.publish.base")
        extensions.configure<MavenPublishBaseExtension> {
            configure(
                AndroidSingleVariantLibrary(
                    javadocJar = JavadocJar.Dokka("dokkaGeneratePublicationHtml"),
                    sourcesJar = SourcesJar.Sources(),
                    variant = "release",
                ),
            )
            coordinates("dev.linekit", "linekit-android", linekitVersion)
            // Upload, validate and release in one `publishToMavenCentral`.
            publishToMavenCentral(automaticRelease = true)
            if (signingKey.isPresent) signAllPublications()
            pom {
                name.set("Linekit for Android")
                description.set(
                    "Multi-line CDN failover, HTTPDNS and line ranking for OkHttp on Android: " +
                        "a Rust core (liblinekit.so) with Kotlin bindings.",
                )
                url.set(projectUrl)
                licenses {
                    license {
                        name.set("Apache-2.0")
                        url.set("https://www.apache.org/licenses/LICENSE-2.0.txt")
                        distribution.set("repo")
                    }
                }
                developers {
                    developer {
                        id.set("linekit")
                        name.set("The Linekit authors")
                        url.set(projectUrl)
                    }
                }
                scm {
                    url.set(projectUrl)
                    connection.set(projectUrl.map { "scm:git:$it.git" })
                    developerConnection.set(projectUrl.map { "scm:git:$it.git" })
                }
            }
        }
        // Gradle Module Metadata does not keep the `@aar` artifact type of the JNA dependency,
        // so a Gradle consumer reading the .module file
        // would get JNA's desktop jar without libjnidispatch.so for Android. Publishing only the
        // POM, which records <type>aar</type>, gives every consumer the AAR.
        tasks.withType<GenerateModuleMetadata>().configureEach { enabled = false }
    }
}
