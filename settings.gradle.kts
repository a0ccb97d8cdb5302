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
include(":kotlin-sample")
