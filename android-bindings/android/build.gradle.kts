// Android library (AAR) of Linekit, published as dev.linekit:linekit-android (the root build
// adds publishing; see ../../build.gradle.kts).
//
// Supported line: Android Gradle plugin 9.2 with built-in Kotlin, Gradle 9.4.1+, JDK 17, NDK r28+,
// cargo-ndk, and the Rust toolchain of rust-toolchain.toml. `./gradlew :android-bindings:assembleRelease`
// builds everything the AAR holds: liblinekit.so for the four ABIs (cargo-ndk), the UniFFI Kotlin
// bindings (from a host build of the same crate) and the Kotlin library. Not run on the Linekit CI
// machines (no Android SDK): there, pom.xml and robolectric/pom.xml build and test the same sources
// on the host JVM.
//
// Self-contained, so that an app can include it from source (settings.gradle.kts:
// include(":linekit"); project(":linekit").projectDir = file(".../android-bindings/android")):
// - the plugin is requested without a version (the including build has the Android Gradle plugin
//   on its classpath already; every Android app does) and no other plugin is applied here;
// - versions come from gradle/libs.versions.toml of this checkout, read by this file, never from
//   the including build's `libs` accessors, which an app's catalog would not have;
// - every path is relative to this module; the cargo workspace is two levels up.
//
// Native build: a cargo-ndk task of our own rather than Mozilla's rust-android-gradle plugin. The
// plugin predates AGP 9 (it hooks the legacy variant API that AGP 9's new DSL removes) and adds a
// second configuration surface for one command; a small task class keeps the cargo-ndk call
// visible, declares its inputs and outputs for up-to-date checks, and plugs into AGP through the
// Variant API: `sources.jniLibs.addGeneratedSourceDirectory` makes every consumer of the jniLibs
// (merge<Variant>JniLibFolders, the AAR bundle, lint) depend on it, so `clean` or an IDE rebuild
// can never lose the .so files. The same mechanism adds the generated UniFFI Kotlin sources.
// Both tasks only touch Provider/Property values and injected ExecOperations: they are
// configuration-cache compatible.
import org.gradle.api.tasks.PathSensitivity
import javax.inject.Inject

plugins {
    id("com.android.library")
}

val cargoWorkspace: Directory = layout.projectDirectory.dir("../..")
val cargoTargetDir: Provider<Directory> = providers.environmentVariable("CARGO_TARGET_DIR")
    .map { layout.projectDirectory.dir(it) }
    .orElse(cargoWorkspace.dir("target"))

/** `[versions]` of a version catalog file: `key = "value"` lines up to the next table. */
fun catalogVersions(toml: String): Map<String, String> =
    Regex("""(?m)^([A-Za-z0-9_.-]+)\s*=\s*"([^"]*)"""")
        .findAll(toml.substringAfter("\n[versions]", "").substringBefore("\n["))
        .associate { it.groupValues[1] to it.groupValues[2] }

/** The versions of this checkout's gradle/libs.versions.toml (the one place for them). */
val catalog: Map<String, String> =
    catalogVersions(providers.fileContents(cargoWorkspace.file("gradle/libs.versions.toml")).asText.get())

/** One version of gradle/libs.versions.toml; fails the configuration when the key is missing. */
fun catalogVersion(key: String): String = catalog[key] ?: error("gradle/libs.versions.toml has no version '$key'")

/** The Rust sources and settings both native tasks depend on (build.rs-free crates). */
fun rustInputs(): ConfigurableFileCollection = files(
    cargoWorkspace.file("Cargo.toml"),
    cargoWorkspace.file("Cargo.lock"),
    cargoWorkspace.file("rust-toolchain.toml"),
    cargoWorkspace.file("rust-core/Cargo.toml"),
    cargoWorkspace.file("rust-core/uniffi.toml"),
    cargoWorkspace.dir("rust-core/src"),
    cargoWorkspace.file("android-bindings/Cargo.toml"),
    cargoWorkspace.file("android-bindings/uniffi.toml"),
    cargoWorkspace.dir("android-bindings/src"),
)

/**
 * A task that runs cargo in [workspace]; it re-runs when [rustSources] change. Every such
 * task gets both from [rustInputs] and the workspace, and where to look for cargo (see
 * `withType<CargoTask>` below).
 */
abstract class CargoTask : DefaultTask() {
    @get:InputFiles
    @get:PathSensitive(PathSensitivity.RELATIVE)
    abstract val rustSources: ConfigurableFileCollection

    @get:Internal
    abstract val workspace: DirectoryProperty

    /** The `linekit.cargo` Gradle property: cargo's path, used as given. */
    @get:Internal
    abstract val cargoProperty: Property<String>

    /** The `CARGO_HOME` environment variable: cargo is `$CARGO_HOME/bin/cargo`. */
    @get:Internal
    abstract val cargoHome: Property<String>

    /** The user's home: rustup's default `~/.cargo/bin/cargo`. */
    @get:Internal
    abstract val userHome: Property<String>

    /**
     * cargo, from the `linekit.cargo` property, else `$CARGO_HOME/bin`, else `~/.cargo/bin`;
     * never from PATH, which an IDE's Gradle daemon (Android Studio on macOS) often lacks
     * ~/.cargo/bin on. Fails naming all three places when none holds it.
     */
    fun cargo(): File {
        val exe = if (System.getProperty("os.name").startsWith("Windows")) "cargo.exe" else "cargo"
        cargoProperty.orNull?.let { given ->
            val file = File(given)
            if (!file.canExecute()) throw GradleException("linekit.cargo=$given is not an executable cargo")
            return file
        }
        val candidates = listOfNotNull(
            cargoHome.orNull?.let { File(it, "bin/$exe") },
            userHome.orNull?.let { File(it, ".cargo/bin/$exe") },
        )
        return candidates.firstOrNull { it.canExecute() } ?: throw GradleException(
            "cargo not found. Install Rust with rustup, or tell the build where cargo is: " +
                "the Gradle property linekit.cargo=/path/to/cargo (e.g. in ~/.gradle/gradle.properties), " +
                "CARGO_HOME (looked for ${cargoHome.orNull?.let { "$it/bin/$exe" } ?: "\$CARGO_HOME/bin/$exe: CARGO_HOME is not set"}), " +
                "or ~/.cargo/bin (looked for ${userHome.orNull}/.cargo/bin/$exe).",
        )
    }
}

/**
 * `scripts/cargo-ndk.sh MODE OUT PLATFORM ABI...`: one liblinekit.so per ABI under OUT/<abi>/,
 * linked by the NDK AGP resolves (android.ndkVersion). `release` uses the flags of
 * scripts/release-flags.sh (LINEKIT_STABLE_FLAGS=1: the stable set), `debug` cargo's dev
 * profile; both link for 16 KB pages.
 */
abstract class CargoNdkBuild @Inject constructor(private val exec: ExecOperations) : CargoTask() {
    /** `release` or `debug`. */
    @get:Input
    abstract val mode: Property<String>

    @get:Input
    abstract val abis: ListProperty<String>

    @get:Input
    abstract val platform: Property<Int>

    /** LINEKIT_STABLE_FLAGS of the environment ("1": the stable flag set). */
    @get:Input
    abstract val stableFlags: Property<String>

    /** The scripts, linker script and version script the build runs with. */
    @get:InputFiles
    @get:PathSensitive(PathSensitivity.RELATIVE)
    abstract val buildScripts: ConfigurableFileCollection

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
        val cargo = cargo()
        exec.exec {
            workingDir = workspace.get().asFile
            environment("ANDROID_NDK_HOME", ndk.path)
            environment("LINEKIT_CARGO", cargo.path)
            environment("LINEKIT_STABLE_FLAGS", stableFlags.get())
            // cargo-ndk and rustup's rustc live next to cargo.
            environment("PATH", cargo.parentFile.path + File.pathSeparator + (System.getenv("PATH") ?: ""))
            commandLine(
                listOf(bash(), "scripts/cargo-ndk.sh", mode.get(), out.path, platform.get().toString()) + abis.get(),
            )
        }
    }

    private fun bash(): String = listOf("/bin/bash", "/usr/bin/bash").firstOrNull { File(it).canExecute() } ?: "bash"
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
        val cargo = cargo()
        exec.exec {
            workingDir = workspace.get().asFile
            environment("PATH", cargo.parentFile.path + File.pathSeparator + (System.getenv("PATH") ?: ""))
            commandLine(
                cargo.path, "build", "-p", "linekit-android", "--features", "bindgen",
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
    cargoProperty.set(providers.gradleProperty("linekit.cargo"))
    cargoHome.set(providers.environmentVariable("CARGO_HOME"))
    userHome.set(providers.systemProperty("user.home"))
}

val androidAbis = listOf("arm64-v8a", "armeabi-v7a", "x86_64", "x86")

tasks.withType<CargoNdkBuild>().configureEach {
    platform.set(catalogVersion("minSdk").toInt())
    ndkDirectory.set(androidComponents.sdkComponents.ndkDirectory)
    stableFlags.set(providers.environmentVariable("LINEKIT_STABLE_FLAGS").orElse("0"))
    buildScripts.from(
        cargoWorkspace.file("scripts/cargo-ndk.sh"),
        cargoWorkspace.file("scripts/release-flags.sh"),
        cargoWorkspace.file("scripts/release-discard.ld"),
        cargoWorkspace.file("scripts/release-hide-async.ver"),
    )
}

val cargoNdkRelease = tasks.register<CargoNdkBuild>("cargoNdkRelease") {
    description = "Builds the release liblinekit.so for arm64-v8a, armeabi-v7a, x86_64 and x86 with cargo-ndk."
    mode.set("release")
    abis.set(androidAbis)
    outputDir.set(layout.buildDirectory.dir("generated/cargoNdk/release"))
}

// A debug build deployed from the IDE builds only the device's ABI: Android Studio passes the
// device's ABIs, most preferred first, in `android.injected.build.abi`. Without it (a
// command-line build) it builds all four, still in cargo's fast dev profile.
val cargoNdkDebug = tasks.register<CargoNdkBuild>("cargoNdkDebug") {
    description = "Builds a dev-profile liblinekit.so for the deployed device's ABI (all four without one) with cargo-ndk."
    mode.set("debug")
    abis.set(
        providers.gradleProperty("android.injected.build.abi")
            .map { injected -> injected.split(',').map(String::trim).filter { it in androidAbis }.take(1) }
            .map { it.ifEmpty { androidAbis } }
            .orElse(androidAbis),
    )
    outputDir.set(layout.buildDirectory.dir("generated/cargoNdk/debug"))
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
    compileSdk = catalogVersion("compileSdk").toInt()
    ndkVersion = catalogVersion("ndk")
    defaultConfig {
        minSdk = catalogVersion("minSdk").toInt()
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
}

kotlin {
    compilerOptions {
        // Linekit's own build (gradle.properties: linekit.werror=true) fails on any warning; an
        // app that includes the module compiles it with its own Kotlin and its own rules.
        allWarningsAsErrors.set(providers.gradleProperty("linekit.werror").map(String::toBoolean).orElse(false))
    }
}

// Generated directories go through the Variant API (com.android.build.api.variant
// .SourceDirectories.addGeneratedSourceDirectory, AGP 8+ and 9): the task dependency comes with
// the directory, for every consumer of the source type. Release variants package the release
// .so, debug variants the dev-profile one. Built elsewhere (the workflow's emulator legs reuse
// the build job's): `-Plinekit.jniLibs=DIR` packages DIR/<abi>/liblinekit.so instead of running
// cargo-ndk, `-Plinekit.uniffiDir=DIR` compiles the bindings generated in DIR.
val prebuiltJniLibs: String? = providers.gradleProperty("linekit.jniLibs").orNull?.let { file(it).path }
val prebuiltBindings: String? = providers.gradleProperty("linekit.uniffiDir").orNull?.let { file(it).path }
androidComponents {
    onVariants { variant ->
        when {
            prebuiltJniLibs != null -> variant.sources.jniLibs?.addStaticSourceDirectory(prebuiltJniLibs)
            variant.buildType == "release" ->
                variant.sources.jniLibs?.addGeneratedSourceDirectory(cargoNdkRelease, CargoNdkBuild::outputDir)
            else -> variant.sources.jniLibs?.addGeneratedSourceDirectory(cargoNdkDebug, CargoNdkBuild::outputDir)
        }
        if (prebuiltBindings != null) {
            variant.sources.kotlin?.addStaticSourceDirectory(prebuiltBindings)
        } else {
            variant.sources.kotlin?.addGeneratedSourceDirectory(uniffiBindings, UniffiBindings::outputDir)
        }
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
    api("com.squareup.okhttp3:okhttp:${catalogVersion("okhttp")}")
    // The AAR flavour of JNA ships libjnidispatch.so for every Android ABI. The dependency is
    // the POM's to declare: an AAR never carries its dependencies.
    implementation("net.java.dev.jna:jna:${catalogVersion("jna")}@aar")

    testImplementation("junit:junit:${catalogVersion("junit4")}")
    testImplementation("org.robolectric:robolectric:${catalogVersion("robolectric")}")
    testImplementation("com.squareup.okhttp3:mockwebserver3:${catalogVersion("okhttp")}")
    // Robolectric runs on the host JVM: JNA from the jar (desktop libjnidispatch), not the AAR.
    testImplementation("net.java.dev.jna:jna:${catalogVersion("jna")}")
}
