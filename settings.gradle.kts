// Gradle build for Android users (AAR + sample app). Not run on the Linekit CI machines,
// which have no Android SDK: there, Maven builds and tests the same Kotlin on the host JVM.
pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
    }
}
dependencyResolutionManagement {
    repositoriesMode.set(RepositoriesMode.FAIL_ON_PROJECT_REPOS)
    repositories {
        google()
        mavenCentral()
    }
}
rootProject.name = "linekit"
include(":android-bindings")
// The Kotlin library lives beside its Rust crate: android-bindings/src is Rust, android-bindings/android the Android library.
project(":android-bindings").projectDir = file("android-bindings/android")
include(":kotlin-sample")
