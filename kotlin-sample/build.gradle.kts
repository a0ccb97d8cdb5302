// Android sample app (AGP 9.2, built-in Kotlin; never run on the Linekit CI machines): the
// conventional source sets src/main and src/androidTest only. The JVM demo in src/jvmDemo is
// built by kotlin-sample/pom.xml (`./build.sh demo`) and belongs to no Android source set.
plugins {
    alias(libs.plugins.android.application)
}

android {
    namespace = "dev.linekit.sample.app"
    compileSdk = libs.versions.compileSdk.get().toInt()
    defaultConfig {
        applicationId = "dev.linekit.sample.app"
        minSdk = libs.versions.minSdk.get().toInt()
        targetSdk = libs.versions.targetSdk.get().toInt()
        versionCode = 1
        versionName = "1.0"
        testInstrumentationRunner = "androidx.test.runner.AndroidJUnitRunner"
    }
    buildTypes {
        release {
            // Exercises the library's consumer rules (JNA, bindings, JNI) under R8.
            isMinifyEnabled = true
            proguardFiles(getDefaultProguardFile("proguard-android-optimize.txt"))
        }
    }
    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
}

kotlin {
    compilerOptions {
        allWarningsAsErrors.set(true)
    }
}

dependencies {
    implementation(project(":android-bindings"))
    androidTestImplementation(libs.androidx.test.runner)
    androidTestImplementation(libs.androidx.test.core)
    androidTestImplementation(libs.androidx.test.ext.junit)
    androidTestImplementation(libs.mockwebserver3)
}
