package dev.linekit.android

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File
import java.lang.reflect.Modifier
import java.util.jar.JarFile

/**
 * The consumer ProGuard/R8 rules name classes that exist: every class pattern of a `-keep`
 * rule matches at least one compiled class (main library, generated UniFFI bindings, JNA),
 * every `native <methods>` rule matches a class with native methods, and every JNI symbol
 * `Java_<class>_<method>` exported by the Rust fast path has its class and native method,
 * kept by name. Renaming a kept class or native method fails this test.
 *
 * Plain JUnit: no Android runtime needed (classes are loaded without initialising them).
 */
class ConsumerRulesTest {
    private val rulesFile = file("linekit.consumer.rules", "consumer-rules.pro", "../consumer-rules.pro")
    private val jniSource = file("linekit.jni.source", "../src/fast.rs", "../../src/fast.rs")

    /** Every class in the jars/directories of the library, its bindings, JNA and this module. */
    private val classes: Set<String> by lazy {
        val anchors = listOf(dev.linekit.LineKit::class.java, dev.linekit.ffi.NativeLineKit::class.java,
            com.sun.jna.Native::class.java, LineKitAndroid::class.java, okhttp3.OkHttpClient::class.java)
        anchors.map { File(it.protectionDomain.codeSource.location.toURI()) }.distinct()
            .flatMap(::classNames).toSet()
    }

    private data class Rule(val line: String, val classPattern: String, val supertype: String?, val members: String)

    private val rules: List<Rule> by lazy {
        val spec = Regex("""^-keep\S*\s+(?:\S+\s+)*?(?:class|interface|enum)\s+(\S+)(?:\s+(?:implements|extends)\s+(\S+))?\s*(\{.*\})?\s*$""")
        rulesFile.readLines().map { it.trim() }.filter { it.startsWith("-keep") }.map { line ->
            val m = spec.find(line) ?: throw AssertionError("unparsed keep rule: $line")
            Rule(line, m.groupValues[1], m.groupValues[2].ifEmpty { null }, m.groupValues[3])
        }
    }

    @Test
    fun `the rules file has the JNA, bindings and JNI rules`() {
        assertTrue(rules.size >= 5)
        assertTrue(rules.any { it.classPattern == "com.sun.jna.**" })
        assertTrue(rules.any { it.classPattern == "dev.linekit.ffi.**" })
        assertTrue(rules.any { it.classPattern == "dev.linekit.internal.NativeFast" && "native" in it.members })
    }

    @Test
    fun `every kept class pattern matches a compiled class`() {
        for (rule in rules) {
            // `class * { native <methods>; }` names no class; the native test covers it.
            val pattern = if (rule.classPattern == "*") rule.supertype ?: continue else rule.classPattern
            val regex = globToRegex(pattern)
            assertTrue("no class matches `$pattern` in: ${rule.line}", classes.any { regex.matches(it) })
        }
    }

    @Test
    fun `every kept native-methods rule names a class with native methods`() {
        for (rule in rules.filter { "native <methods>" in it.members && it.classPattern != "*" }) {
            val cls = load(rule.classPattern)
            assertTrue("${rule.classPattern} has no native methods", cls.declaredMethods.any { Modifier.isNative(it.modifiers) })
        }
    }

    @Test
    fun `every JNI symbol of the fast path has its class and native method, kept by name`() {
        val symbols = Regex("""fn\s+Java_([A-Za-z0-9_]+?)_([A-Za-z0-9]+)\s*[<(]""").findAll(jniSource.readText())
            .map { it.groupValues[1].replace('_', '.') to it.groupValues[2] }.toList()
        assertTrue("no JNI symbols found in $jniSource", symbols.size >= 4)
        for ((className, method) in symbols) {
            val cls = load(className)
            assertTrue(
                "$className.$method is not a native method",
                cls.declaredMethods.any { it.name == method && Modifier.isNative(it.modifiers) },
            )
            assertTrue("no keep rule names $className", rules.any { it.classPattern == className && "native" in it.members })
        }
        assertEquals(symbols.map { it.second }.sorted(), load("dev.linekit.internal.NativeFast").declaredMethods
            .filter { Modifier.isNative(it.modifiers) }.map { it.name }.sorted())
    }

    @Test
    fun `every method a keep rule names exists with that return type`() {
        val method = Regex("""([\w.$]+)\s+([\w$]+)\(\)""")
        val named = rules.filter { '*' !in it.classPattern }.flatMap { r -> method.findAll(r.members).map { r to it }.toList() }
        assertTrue("no keep rule names a method", named.isNotEmpty())
        for ((rule, m) in named) {
            val (type, name) = m.destructured
            assertTrue(
                "${rule.classPattern} has no `${m.value}` (renamed by a dependency update?)",
                load(rule.classPattern).methods.any { it.name == name && it.parameterCount == 0 && it.returnType.name == type },
            )
        }
    }

    @Test
    fun `explicitly named binding classes exist (not only the package wildcard)`() {
        val named = rules.map { it.classPattern }.filter { it.startsWith("dev.linekit.") && '*' !in it }
        assertTrue(named.size >= 5)
        named.forEach { load(it) }
    }

    private fun load(name: String): Class<*> = try {
        Class.forName(name, false, javaClass.classLoader)
    } catch (e: ClassNotFoundException) {
        throw AssertionError("kept class $name does not exist (renamed?)", e)
    }

    private companion object {
        fun file(property: String, vararg candidates: String): File =
            (listOfNotNull(System.getProperty(property)) + candidates).map(::File).firstOrNull { it.isFile }
                ?: throw AssertionError("none of ${candidates.toList()} found (set -D$property)")

        /** ProGuard class-name wildcards: `**` any characters, `*` within a package, `?` one. */
        fun globToRegex(glob: String): Regex {
            val sb = StringBuilder()
            var i = 0
            while (i < glob.length) {
                when {
                    glob.startsWith("**", i) -> { sb.append(".*"); i += 2 }
                    glob[i] == '*' -> { sb.append("[^.]*"); i++ }
                    glob[i] == '?' -> { sb.append("[^.]"); i++ }
                    else -> { sb.append(Regex.escape(glob[i].toString())); i++ }
                }
            }
            return Regex(sb.toString())
        }

        fun classNames(root: File): List<String> = if (root.isDirectory) {
            root.walkTopDown().filter { it.isFile && it.name.endsWith(".class") }
                .map { it.relativeTo(root).path.removeSuffix(".class").replace(File.separatorChar, '.') }.toList()
        } else {
            JarFile(root).use { jar ->
                jar.entries().toList().map { it.name }.filter { it.endsWith(".class") && !it.startsWith("META-INF") }
                    .map { it.removeSuffix(".class").replace('/', '.') }
            }
        }
    }
}
