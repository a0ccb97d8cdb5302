package dev.linekit

import kotlin.metadata.ClassKind
import kotlin.metadata.KmClass
import kotlin.metadata.KmClassifier
import kotlin.metadata.KmConstructor
import kotlin.metadata.KmFunction
import kotlin.metadata.KmType
import kotlin.metadata.KmValueParameter
import kotlin.metadata.Modality
import kotlin.metadata.Visibility
import kotlin.metadata.declaresDefaultValue
import kotlin.metadata.isFunInterface
import kotlin.metadata.jvm.KotlinClassMetadata
import kotlin.metadata.jvm.signature
import kotlin.metadata.kind
import kotlin.metadata.modality
import kotlin.metadata.visibility
import okhttp3.Dns
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File
import java.lang.reflect.InvocationTargetException
import java.lang.reflect.Method
import java.lang.reflect.Modifier

/**
 * The public API as a Java caller sees it, read from the compiled classes and their Kotlin
 * metadata. It fails on what Java cannot use well:
 * - an unsigned type in a public signature (Java sees a mangled name, or a raw `long`
 *   whose meaning it cannot tell), including the bindings' types an app implements or
 *   handles when it writes its own transport;
 * - a Kotlin function type in a public signature (a Java lambda would have to return
 *   `Unit.INSTANCE`): callbacks are `fun interface`s, and every public interface with one
 *   abstract function is one;
 * - a public function or constructor with default arguments and no overloads
 *   (`@JvmOverloads`);
 * - a `*Kt` file facade with members Java can call;
 * - a [LineKit] method that raises [LineKitException] without declaring it (`@Throws`),
 *   found by calling every method on a closed engine.
 *
 * The Android-only package is left out: its signatures name framework classes that a
 * host JVM cannot load. The Java test source set compiles calls into it instead.
 */
class JavaSurfaceTest {
    private val loader = javaClass.classLoader

    /** Every class compiled from the library's sources, outside the Android-only package. */
    private val libraryClasses: List<Class<*>> by lazy {
        val root = File(LineKit::class.java.protectionDomain.codeSource.location.toURI())
        root.walkTopDown().filter { it.isFile && it.name.endsWith(".class") }
            .map { it.relativeTo(root).path.removeSuffix(".class").replace(File.separatorChar, '.') }
            .filter { it.startsWith("dev.linekit.") && !it.startsWith("dev.linekit.ffi.") && !it.startsWith("dev.linekit.android.") }
            .map { Class.forName(it, false, loader) }
            .toList()
    }

    private fun metadataOf(cls: Class<*>): KotlinClassMetadata? =
        cls.getAnnotation(Metadata::class.java)?.let { KotlinClassMetadata.readStrict(it) }

    private fun kmClassOf(cls: Class<*>): KmClass? = (metadataOf(cls) as? KotlinClassMetadata.Class)?.kmClass

    /** Public, and nested only in public classes. */
    private fun isPublic(cls: Class<*>): Boolean {
        val km = kmClassOf(cls) ?: return false
        if (km.visibility != Visibility.PUBLIC) return false
        return cls.enclosingClass?.let(::isPublic) ?: true
    }

    /** The public classes of the library with their metadata. */
    private val publicClasses: List<Pair<Class<*>, KmClass>> by lazy {
        libraryClasses.filter(::isPublic).map { it to kmClassOf(it)!! }
    }

    private class Signature(val where: String, val types: List<KmType>, val parameters: List<KmValueParameter>)

    private fun signaturesOf(km: KmClass): List<Signature> {
        val functions = km.functions.filter { it.visibility == Visibility.PUBLIC }.map { f ->
            Signature("${km.name}.${f.name}", listOfNotNull(f.receiverParameterType, f.returnType) + f.valueParameters.map { it.type }, f.valueParameters)
        }
        val constructors = km.constructors.filter { it.visibility == Visibility.PUBLIC }.map { c ->
            Signature("${km.name}.<init>", c.valueParameters.map { it.type }, c.valueParameters)
        }
        val properties = km.properties.filter { it.visibility == Visibility.PUBLIC }.map { p ->
            Signature("${km.name}.${p.name}", listOfNotNull(p.returnType, p.receiverParameterType), emptyList())
        }
        return functions + constructors + properties
    }

    private fun classNamesIn(type: KmType): List<String> =
        listOfNotNull((type.classifier as? KmClassifier.Class)?.name) +
            type.arguments.mapNotNull { it.type }.flatMap(::classNamesIn)

    private fun unsignedIn(signatures: List<Signature>): List<String> = signatures.flatMap { s ->
        s.types.flatMap(::classNamesIn).filter { it in UNSIGNED }.map { "${s.where}: $it" }
    }

    @Test
    fun `no public signature carries an unsigned type`() {
        assertTrue(publicClasses.size > 20, "scanned ${publicClasses.size} classes")
        assertEquals(emptyList<String>(), publicClasses.flatMap { (_, km) -> unsignedIn(signaturesOf(km)) })
    }

    @Test
    fun `what an app implements or handles for its own transport carries no unsigned type`() {
        // Every bindings type reachable from the transport's signatures, transitively.
        val seen = linkedMapOf<String, KmClass>()
        val queue = ArrayDeque(listOf(jvmName(LineKitTransport::class.java)))
        while (queue.isNotEmpty()) {
            val name = queue.removeFirst()
            if (name in seen || !name.startsWith("dev/linekit/ffi")) continue
            // Metadata names: packages with '/', nesting with '.'.
            val km = kmClassOf(Class.forName(name.replace('.', '$').replace('/', '.'), false, loader)) ?: continue
            seen[name] = km
            km.nestedClasses.forEach { queue.add("$name.$it") }
            signaturesOf(km).flatMap { it.types }.flatMap(::classNamesIn).forEach(queue::add)
        }
        assertTrue(seen.keys.any { it.endsWith("TransportRequest") } && seen.keys.any { it.endsWith("TransportOutcome.Response") }, seen.keys.toString())
        assertEquals(emptyList<String>(), seen.values.flatMap { unsignedIn(signaturesOf(it)) })
    }

    @Test
    fun `callbacks are fun interfaces, never Kotlin function types`() {
        val functionTypes = publicClasses.flatMap { (_, km) ->
            signaturesOf(km).flatMap { s -> s.types.flatMap(::classNamesIn).filter(::isFunctionType).map { "${s.where}: $it" } }
        }
        assertEquals(emptyList<String>(), functionTypes)
        val singleMethodInterfaces = publicClasses.map { it.second }.filter { km ->
            km.kind == ClassKind.INTERFACE && km.properties.none { it.modality == Modality.ABSTRACT } &&
                km.functions.count { it.modality == Modality.ABSTRACT } == 1
        }
        assertTrue(singleMethodInterfaces.any { it.name == "dev/linekit/TraceSink" }, singleMethodInterfaces.map { it.name }.toString())
        assertEquals(emptyList<String>(), singleMethodInterfaces.filter { !it.isFunInterface }.map { it.name })
    }

    @Test
    fun `every public function with default arguments has overloads for Java`() {
        val missing = publicClasses.flatMap { (cls, km) ->
            val functions = km.functions.filter { f ->
                f.visibility == Visibility.PUBLIC && f.valueParameters.any { it.declaresDefaultValue } &&
                    !(f.name == "copy" && km.isDataClassLike())
            }.mapNotNull { f -> missingOverload(cls, f) }
            val constructors = km.constructors.filter { c ->
                c.visibility == Visibility.PUBLIC && c.valueParameters.any { it.declaresDefaultValue }
            }.mapNotNull { c -> missingOverload(cls, km, c) }
            functions + constructors
        }
        assertEquals(emptyList<String>(), missing)
    }

    @Test
    fun `no file facade named Kt offers Java a member`() {
        val facades = libraryClasses.mapNotNull { cls -> (metadataOf(cls) as? KotlinClassMetadata.FileFacade)?.let { cls to it.kmPackage } }
        val exposed = facades.filter { (cls, _) -> cls.simpleName.endsWith("Kt") }.flatMap { (cls, pkg) ->
            val functions = pkg.functions.filter { f ->
                f.visibility == Visibility.PUBLIC &&
                    cls.declaredMethods.any { it.name == f.signature?.name && descriptorOf(it) == f.signature?.descriptor && !it.isSynthetic }
            }
            functions.map { "${cls.name}.${it.name}" } +
                pkg.properties.filter { it.visibility == Visibility.PUBLIC }.map { "${cls.name}.${it.name}" }
        }
        assertTrue(facades.any { it.first.name == "dev.linekit.LineKitOkHttpKt" }, facades.map { it.first }.toString())
        assertEquals(emptyList<String>(), exposed)
    }

    @Test
    fun `every LineKit call that raises LineKitException declares it`() {
        val kit = LineKit.Builder().configJson(CONFIG).transport(null).build()
        kit.close()
        val calls = LineKit::class.java.declaredMethods.filter {
            Modifier.isPublic(it.modifiers) && !Modifier.isStatic(it.modifiers) && !it.isSynthetic && it.name != "close"
        }
        val raising = calls.filter { raisesLineKitException(kit, it) }
        assertTrue(raising.any { it.name == "updateConfig" } && raising.any { it.name == "diagnose" }, raising.toString())
        assertEquals(
            emptyList<String>(),
            raising.filter { m -> m.exceptionTypes.none { it == LineKitException::class.java } }.map { it.toGenericString() },
        )
        assertTrue(
            LineKit.Builder::class.java.getMethod("build").exceptionTypes.contains(LineKitException::class.java),
            "Builder.build declares LineKitException",
        )
    }

    private fun raisesLineKitException(kit: LineKit, m: Method): Boolean = try {
        m.invoke(kit, *m.parameterTypes.map(::sample).toTypedArray())
        false
    } catch (e: InvocationTargetException) {
        e.cause is LineKitException
    }

    /** A usable argument of [type] for a call on a closed engine. */
    private fun sample(type: Class<*>): Any? = when (type) {
        String::class.java -> "http://api.linekit.test/"
        java.lang.Long.TYPE -> 0L
        java.lang.Integer.TYPE -> 0
        java.lang.Boolean.TYPE -> false
        List::class.java -> emptyList<String>()
        PrivateDnsMode::class.java -> PrivateDnsMode.OFF
        Dns::class.java -> Dns.SYSTEM
        DiagnosisCallback::class.java -> DiagnosisCallback { }
        else -> null
    }

    private fun KmClass.isDataClassLike(): Boolean = functions.any { it.name == "component1" }

    /** Null when [f] has the overload without its defaulted parameters, else what is missing. */
    private fun missingOverload(cls: Class<*>, f: KmFunction): String? {
        val signature = f.signature ?: return "${cls.name}.${f.name}: no JVM signature"
        val full = cls.declaredMethods.firstOrNull { it.name == signature.name && descriptorOf(it) == signature.descriptor }
            ?: return "${cls.name}.${f.name}: no JVM method ${signature.descriptor}"
        if (full.isSynthetic) return null // @JvmSynthetic: not visible to Java at all
        val shortest = full.parameterCount - f.valueParameters.count { it.declaresDefaultValue }
        return if (cls.declaredMethods.any { it.name == full.name && !it.isSynthetic && it.parameterCount == shortest }) {
            null
        } else {
            "${cls.name}.${f.name}: defaults without @JvmOverloads"
        }
    }

    private fun missingOverload(cls: Class<*>, km: KmClass, c: KmConstructor): String? {
        val shortest = c.valueParameters.size - c.valueParameters.count { it.declaresDefaultValue }
        val ok = cls.declaredConstructors.any { !it.isSynthetic && Modifier.isPublic(it.modifiers) && it.parameterCount == shortest }
        return if (ok) null else "${km.name}.<init>: defaults without @JvmOverloads"
    }

    private companion object {
        val UNSIGNED = setOf(
            "kotlin/UByte", "kotlin/UShort", "kotlin/UInt", "kotlin/ULong",
            "kotlin/UByteArray", "kotlin/UShortArray", "kotlin/UIntArray", "kotlin/ULongArray",
        )

        const val CONFIG = """{"version":1,"biz_lines":{"spot":{"match":["api.linekit.test"],"http":[{"id":"a","url":"https://a.linekit.test"}]}}}"""

        fun isFunctionType(name: String): Boolean =
            Regex("kotlin/(coroutines/Suspend)?Function\\d+").matches(name) || name == "kotlin/Function"

        fun jvmName(cls: Class<*>): String = cls.name.replace('.', '/')

        fun descriptorOf(m: Method): String =
            m.parameterTypes.joinToString("", "(", ")") { descriptorOf(it) } + descriptorOf(m.returnType)

        fun descriptorOf(c: Class<*>): String = when {
            c.isArray -> "[" + descriptorOf(c.componentType)
            c == java.lang.Void.TYPE -> "V"
            c == java.lang.Boolean.TYPE -> "Z"
            c == java.lang.Byte.TYPE -> "B"
            c == java.lang.Character.TYPE -> "C"
            c == java.lang.Short.TYPE -> "S"
            c == java.lang.Integer.TYPE -> "I"
            c == java.lang.Long.TYPE -> "J"
            c == java.lang.Float.TYPE -> "F"
            c == java.lang.Double.TYPE -> "D"
            else -> "L" + c.name.replace('.', '/') + ";"
        }
    }
}
