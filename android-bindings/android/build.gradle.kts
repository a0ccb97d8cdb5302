// Android library (AAR) of Linekit. Not run on the Linekit CI machines (no Android SDK):
// there, pom.xml and robolectric/pom.xml build the same sources on the
// host JVM. `./build.sh android` builds the .so files with cargo-ndk first and passes their
// directory as -Plinekit.jniLibs.
import org.jetbrains.kotlin.gradle.dsl.JvmTarget

plugins {
    alias(libs.plugins.android.library)
    alias(libs.plugins.kotlin.android)
}

// The cargo workspace, relative to this module (so an app that includes the module works too).
val repoRoot: File = projectDir.resolve("../..").canonicalFile
val uniffiOut: Provider<Directory> = layout.buildDirectory.dir("generated/uniffi/kotlin")
val jniLibsDir: String = (findProperty("linekit.jniLibs") as String?)
    ?: layout.buildDirectory.dir("jniLibs").get().asFile.path

// UniFFI bindings in library mode from the host (debug, unstripped) liblinekit.so, whose
// metadata describes the same API as the Android builds. Generated code is never committed.
val buildHostLibrary by tasks.registering(Exec::class) {
    workingDir = repoRoot
    commandLine("cargo", "build", "-p", "linekit-android", "--features", "bindgen", "--lib", "--bin", "uniffi-bindgen", "--bin", "kotlin-vocabulary")
}
val generateUniffiBindings by tasks.registering(Exec::class) {
    dependsOn(buildHostLibrary)
    workingDir = repoRoot
    inputs.dir(repoRoot.resolve("android-bindings/src")).withPropertyName("rustSources")
    inputs.dir(repoRoot.resolve("rust-core/src")).withPropertyName("coreSources")
    outputs.dir(uniffiOut)
    doFirst { delete(uniffiOut) }
    commandLine(
        repoRoot.resolve("target/debug/uniffi-bindgen").path, "generate",
        "--library", repoRoot.resolve("target/debug/liblinekit.so").path,
        "--language", "kotlin", "--no-format",
        "--out-dir", uniffiOut.get().asFile.path,
    )
}
// The Kotlin enums of the core's wire vocabularies, into the same generated directory
// (after the UniFFI task, which clears it).
val generateKotlinVocabulary by tasks.registering(Exec::class) {
    dependsOn(generateUniffiBindings)
    workingDir = repoRoot
    commandLine(repoRoot.resolve("target/debug/kotlin-vocabulary").path, uniffiOut.get().asFile.path)
}

// The Robolectric asset test reads src/test/assets as an asset-only zip (as in Maven).
val testAssetsZip by tasks.registering(Zip::class) {
    from("src/test/assets") { into("assets") }
    archiveFileName.set("test-assets.zip")
    destinationDirectory.set(layout.buildDirectory.dir("robolectric"))
}

android {
    namespace = "dev.linekit"
    compileSdk = libs.versions.compileSdk.get().toInt()
    defaultConfig {
        minSdk = libs.versions.minSdk.get().toInt()
        consumerProguardFiles("consumer-rules.pro")
        testInstrumentationRunner = "androidx.test.runner.AndroidJUnitRunner"
    }
    sourceSets {
        getByName("main") {
            // src/main/kotlin (also built by Maven) + the generated bindings.
            java.srcDirs(uniffiOut)
            jniLibs.srcDirs(jniLibsDir)
        }
    }
    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
    testOptions {
        unitTests.isIncludeAndroidResources = true
        unitTests.all { test ->
            test.dependsOn(testAssetsZip)
            test.systemProperty("linekit.test.assets", testAssetsZip.get().archiveFile.get().asFile.path)
            test.systemProperty("linekit.consumer.rules", file("consumer-rules.pro").path)
            test.systemProperty("linekit.jni.source", file("../src/fast.rs").path)
            // Robolectric loads the host .so, as the Maven build does.
            test.systemProperty("jna.library.path", repoRoot.resolve("target/debug").path)
            test.systemProperty("java.library.path", repoRoot.resolve("target/debug").path)
        }
    }
    buildTypes {
        release {
            isMinifyEnabled = false // a library: the app's R8 applies consumer-rules.pro
        }
    }
}

kotlin {
    compilerOptions {
        jvmTarget.set(JvmTarget.JVM_17)
        allWarningsAsErrors.set(true)
    }
}

tasks.named("preBuild") { dependsOn(generateUniffiBindings, generateKotlinVocabulary) }

dependencies {
    api(libs.okhttp)
    // The AAR flavour ships JNA's libjnidispatch.so for every Android ABI.
    implementation("${libs.jna.get().module}:${libs.versions.jna.get()}@aar")

    testImplementation(libs.junit4)
    testImplementation(libs.robolectric)
    testImplementation(libs.mockwebserver3)
    // Host tests load JNA from the jar (desktop libjnidispatch), not the AAR.
    testImplementation(libs.jna)
}
