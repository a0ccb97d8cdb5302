// Android library (AAR) of Linekit, published as dev.linekit:linekit-android.
//
// Supported line: Android Gradle plugin 9.2 with built-in Kotlin, Gradle 9.4.1+, JDK 17, NDK r28+,
// cargo-ndk. `./gradlew :android-bindings:assembleRelease` builds everything the AAR holds:
// liblinekit.so for the four ABIs (cargo-ndk), the UniFFI Kotlin bindings (from a host build of the
// same crate) and the Kotlin library. Not run on the Linekit CI machines (no Android SDK): there,
// pom.xml and robolectric/pom.xml build and test the same sources on the host JVM.
//
// Native build: a cargo-ndk task of our own rather than Mozilla's rust-android-gradle plugin. The
// plugin predates AGP 9 (it hooks the legacy variant API that AGP 9's new DSL removes) and adds a
// second configuration surface for one command; a task class of 40 lines keeps the cargo-ndk call
// visible, declares its inputs and outputs for up-to-date checks, and plugs into AGP through the
// Variant API: `sources.jniLibs.addGeneratedSourceDirectory` makes every consumer of the jniLibs
// (merge<Variant>JniLibFolders, the AAR bundle, lint) depend on it, so `clean` or an IDE rebuild
// can never lose the .so files. The same mechanism adds the generated UniFFI Kotlin sources.
// Both tasks only touch Provider/Property values and injected ExecOperations: they are
// configuration-cache compatible (docs.gradle.org/current/userguide/configuration_cache_requirements.html).
import org.gradle.api.tasks.PathSensitivity
import javax.inject.Inject

plugins {
    alias(libs.plugins.android.library)
    `maven-publish`
}

// Every path is relative to this module, so an app that includes the module from elsewhere
// (settings.gradle.kts: project(":linekit").projectDir = file(".../android-bindings/android"))
// builds the same way. The cargo workspace is two levels up.
val cargoWorkspace: Directory = layout.projectDirectory.dir("../..")
val cargoTargetDir: Provider<Directory> = providers.environmentVariable("CARGO_TARGET_DIR")
    .map { layout.projectDirectory.dir(it) }
    .orElse(cargoWorkspace.dir("target"))

// The version lives in one place: [workspace.package] of the root Cargo.toml (the .so and the
// AAR always carry the same number).
val linekitVersion: Provider<String> = providers.fileContents(cargoWorkspace.file("Cargo.toml")).asText.map { toml ->
    val section = toml.substringAfter("[workspace.package]", "")
    Regex("""(?m)^version\s*=\s*"([^"]+)"""").find(section)?.groupValues?.get(1)
        ?: error("no version in [workspace.package] of Cargo.toml")
}

/** The Rust sources both native tasks depend on. */
fun rustInputs(): ConfigurableFileCollection = files(
    cargoWorkspace.file("Cargo.toml"),
    cargoWorkspace.file("Cargo.lock"),
    cargoWorkspace.file("rust-core/Cargo.toml"),
    cargoWorkspace.file("rust-core/uniffi.toml"),
    cargoWorkspace.dir("rust-core/src"),
    cargoWorkspace.file("android-bindings/Cargo.toml"),
    cargoWorkspace.file("android-bindings/uniffi.toml"),
    cargoWorkspace.dir("android-bindings/src"),
)

/**
 * A task that runs cargo in [workspace]; it re-runs when [rustSources] change. Every such
 * task gets both from [rustInputs] and the workspace (see `withType<CargoTask>` below).
 */
abstract class CargoTask : DefaultTask() {
    @get:InputFiles
    @get:PathSensitive(PathSensitivity.RELATIVE)
    abstract val rustSources: ConfigurableFileCollection

    @get:Internal
    abstract val workspace: DirectoryProperty
}

/**
 * `cargo ndk -t ABI... --platform API -o OUT build --release -p linekit-android --lib`: one
 * liblinekit.so per ABI under OUT/<abi>/, linked by the NDK AGP resolves (android.ndkVersion).
 */
abstract class CargoNdkBuild @Inject constructor(private val exec: ExecOperations) : CargoTask() {
    @get:Input
    abstract val abis: ListProperty<String>

    @get:Input
    abstract val platform: Property<Int>

    @get:Internal
    abstract val ndkDirectory: DirectoryProperty

    @get:OutputDirectory
    abstract val outputDir: DirectoryProperty

    @TaskAction
    fun build() {
        val out = outputDir.get().asFile
        out.deleteRecursively()
        out.mkdirs()
        val ndk = ndkDirectory.get().asFile
        require(ndk.resolve("source.properties").isFile) {
            "cargo-ndk needs the NDK: install it with sdkmanager \"ndk;<android.ndkVersion>\" (looked in $ndk)"
        }
        exec.exec {
            workingDir = workspace.get().asFile
            environment("ANDROID_NDK_HOME", ndk.path)
            // The release flags live in one place (scripts/release-flags.sh, also measured by
            // `./build.sh size`); this script applies them to cargo-ndk.
            commandLine(
                listOf("bash", "scripts/cargo-ndk.sh", "release", out.path, platform.get().toString()) + abis.get(),
            )
        }
    }
}

/**
 * Builds the host liblinekit (debug: unstripped, so it keeps the UniFFI metadata) and generates
 * the Kotlin bindings from it in library mode; the API is the same on every target.
 */
abstract class UniffiBindings @Inject constructor(private val exec: ExecOperations) : CargoTask() {
    @get:Internal
    abstract val targetDir: DirectoryProperty

    /** `liblinekit.so`, `liblinekit.dylib` or `linekit.dll`: whatever the host links. */
    @get:Input
    abstract val hostLibraryName: Property<String>

    @get:OutputDirectory
    abstract val outputDir: DirectoryProperty

    @TaskAction
    fun generate() {
        val out = outputDir.get().asFile
        out.deleteRecursively()
        val debug = targetDir.get().asFile.resolve("debug")
        val exe = if (hostLibraryName.get().endsWith(".dll")) ".exe" else ""
        exec.exec {
            workingDir = workspace.get().asFile
            commandLine(
                "cargo", "build", "-p", "linekit-android", "--features", "bindgen",
                "--lib", "--bin", "uniffi-bindgen", "--bin", "kotlin-vocabulary",
            )
        }
        exec.exec {
            workingDir = workspace.get().asFile
            commandLine(
                debug.resolve("uniffi-bindgen$exe").path, "generate",
                "--library", debug.resolve(hostLibraryName.get()).path,
                "--language", "kotlin", "--no-format", "--out-dir", out.path,
            )
        }
        // The Kotlin enums of the core's wire vocabularies, into the same directory.
        exec.exec {
            workingDir = workspace.get().asFile
            commandLine(debug.resolve("kotlin-vocabulary$exe").path, out.path)
        }
    }
}

tasks.withType<CargoTask>().configureEach {
    rustSources.from(rustInputs())
    workspace.set(cargoWorkspace)
}

val cargoNdk = tasks.register<CargoNdkBuild>("cargoNdkRelease") {
    description = "Builds liblinekit.so for arm64-v8a, armeabi-v7a, x86_64 and x86 with cargo-ndk."
    abis.set(listOf("arm64-v8a", "armeabi-v7a", "x86_64", "x86"))
    platform.set(libs.versions.minSdk.map { it.toInt() })
    ndkDirectory.set(androidComponents.sdkComponents.ndkDirectory)
    outputDir.set(layout.buildDirectory.dir("generated/cargoNdk/jniLibs"))
}

val uniffiBindings = tasks.register<UniffiBindings>("generateUniffiBindings") {
    description = "Generates the UniFFI Kotlin bindings (package dev.linekit.ffi) from the host library."
    targetDir.set(cargoTargetDir)
    hostLibraryName.set(System.mapLibraryName("linekit"))
    outputDir.set(layout.buildDirectory.dir("generated/uniffi/kotlin"))
}

// The Robolectric asset test reads src/test/assets as an asset-only zip (as in Maven).
val testAssetsZip = tasks.register<Zip>("testAssetsZip") {
    from("src/test/assets") { into("assets") }
    archiveFileName.set("test-assets.zip")
    destinationDirectory.set(layout.buildDirectory.dir("robolectric"))
}

android {
    namespace = "dev.linekit"
    compileSdk = libs.versions.compileSdk.get().toInt()
    ndkVersion = libs.versions.ndk.get()
    defaultConfig {
        minSdk = libs.versions.minSdk.get().toInt()
        consumerProguardFiles("consumer-rules.pro")
        testInstrumentationRunner = "androidx.test.runner.AndroidJUnitRunner"
    }
    compileOptions {
        // Built-in Kotlin takes its jvmTarget from targetCompatibility.
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
    testOptions {
        unitTests.isIncludeAndroidResources = true
    }
    // Test helpers the unit tests share with the host-JVM suite (pom.xml: src/hostTest).
    sourceSets.getByName("test").kotlin.srcDir("src/testSupport/kotlin")
    buildTypes {
        release {
            isMinifyEnabled = false // a library: the app's R8 applies consumer-rules.pro
        }
    }
    // One published variant with its sources and javadoc jars (LibraryPublishing.singleVariant;
    // developer.android.com/build/publish-library/configure-pub-variants). The "release"
    // software component it creates exists only after evaluation: hence afterEvaluate below.
    publishing {
        singleVariant("release") {
            withSourcesJar()
            withJavadocJar()
        }
    }
}

kotlin {
    compilerOptions {
        allWarningsAsErrors.set(true)
    }
}

// Generated directories go through the Variant API (com.android.build.api.variant
// .SourceDirectories.addGeneratedSourceDirectory, AGP 8+ and 9): the task dependency comes with
// the directory, for every consumer of the source type. `-Plinekit.jniLibs=DIR` packages .so
// files built elsewhere (DIR/<abi>/liblinekit.so) instead of running cargo-ndk.
val prebuiltJniLibs: String? = providers.gradleProperty("linekit.jniLibs").orNull?.let { file(it).path }
androidComponents {
    onVariants { variant ->
        if (prebuiltJniLibs != null) {
            variant.sources.jniLibs?.addStaticSourceDirectory(prebuiltJniLibs)
        } else {
            variant.sources.jniLibs?.addGeneratedSourceDirectory(cargoNdk, CargoNdkBuild::outputDir)
        }
        variant.sources.kotlin?.addGeneratedSourceDirectory(uniffiBindings, UniffiBindings::outputDir)
    }
}

// Robolectric runs the unit tests with the host library the bindings task built.
val hostLibraryDir: Provider<String> = cargoTargetDir.map { it.dir("debug").asFile.path }
val consumerRules: String = layout.projectDirectory.file("consumer-rules.pro").asFile.path
val jniSource: String = layout.projectDirectory.file("../src/fast.rs").asFile.path
val testAssets: Provider<String> = testAssetsZip.flatMap { it.archiveFile }.map { it.asFile.path }
tasks.withType<Test>().configureEach {
    dependsOn(testAssetsZip, uniffiBindings)
    systemProperty("linekit.test.assets", testAssets.get())
    systemProperty("linekit.consumer.rules", consumerRules)
    systemProperty("linekit.jni.source", jniSource)
    systemProperty("jna.library.path", hostLibraryDir.get())
    systemProperty("java.library.path", hostLibraryDir.get())
}

dependencies {
    api(libs.okhttp)
    // The AAR flavour of JNA ships libjnidispatch.so for every Android ABI. The dependency is
    // the POM's to declare: an AAR never carries its dependencies.
    implementation("${libs.jna.get().module}:${libs.versions.jna.get()}@aar")

    testImplementation(libs.junit4)
    testImplementation(libs.robolectric)
    testImplementation(libs.mockwebserver3)
    // Robolectric runs on the host JVM: JNA from the jar (desktop libjnidispatch), not the AAR.
    testImplementation(libs.jna)
}

// Gradle Module Metadata does not keep the `@aar` artifact type of the JNA dependency
// (github.com/gradle/gradle/issues/21267), so a Gradle consumer reading the .module file would
// get JNA's desktop jar without libjnidispatch.so for Android. Publishing only the POM, which
// records <type>aar</type>, gives every consumer the AAR.
tasks.withType<GenerateModuleMetadata>().configureEach { enabled = false }

// The public repository (POM url, scm, developer): one property in gradle.properties.
val projectUrl: Provider<String> = providers.gradleProperty("linekit.url")

publishing {
    publications {
        register<MavenPublication>("release") {
            groupId = "dev.linekit"
            artifactId = "linekit-android"
            version = linekitVersion.get()
            // The component exists once AGP has created the variants.
            afterEvaluate { from(components["release"]) }
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
    }
}
