package seeds

import (
	"strings"
)

// Type is one of the seven in-scope runtime-exception types of
// rxsynth.md §3.1, named by its abbreviation.
type Type string

// The seven in-scope types, in the column order of the paper's Table 3.
const (
	NPE    Type = "NPE"
	IAE    Type = "IAE"
	AIOOBE Type = "AIOOBE"
	NFE    Type = "NFE"
	CCE    Type = "CCE"
	SIOOBE Type = "SIOOBE"
	ISE    Type = "ISE"
)

// Types lists the in-scope types in Table 3's column order.
var Types = []Type{NPE, IAE, AIOOBE, NFE, CCE, SIOOBE, ISE}

// targetClass maps each type's java.lang class to it.
var targetClass = map[string]Type{
	"java.lang.NullPointerException":            NPE,
	"java.lang.IllegalArgumentException":        IAE,
	"java.lang.IllegalStateException":           ISE,
	"java.lang.ClassCastException":              CCE,
	"java.lang.ArrayIndexOutOfBoundsException":  AIOOBE,
	"java.lang.StringIndexOutOfBoundsException": SIOOBE,
	"java.lang.NumberFormatException":           NFE,
}

// Class returns the java.lang class name of t.
func (t Type) Class() string {
	for c, tt := range targetClass {
		if tt == t {
			return c
		}
	}
	return ""
}

// Kind is what a thrown class is for the §3.1 scope.
type Kind string

const (
	KindTarget    Kind = "target"    // one of the seven types (or a subclass)
	KindJUnit     Kind = "junit"     // test-framework artefact (F1)
	KindChecked   Kind = "checked"   // checked exception (F2)
	KindUnchecked Kind = "unchecked" // RuntimeException or Error outside the seven
	KindUnknown   Kind = "unknown"   // not classifiable from the known hierarchy
)

// Resolution is the classification of one thrown class.
type Resolution struct {
	Class string `json:"class"`
	Kind  Kind   `json:"kind"`
	Type  Type   `json:"type,omitempty"` // set when Kind is KindTarget
	// Via names how the class was resolved when it is not itself a root
	// class: the superclass chain ("a > b > c"), the factory frame of an
	// anonymous class, or the name-suffix guess of an unknown class.
	Via string `json:"via,omitempty"`
}

// parent is the known superclass of exception classes met in the seed
// benchmarks. JDK entries follow the Java SE API; project entries were
// read from each project's sources at the Defects4J revisions.
var parent = map[string]string{
	// java.lang roots and JDK classes.
	"java.lang.Throwable":                          "",
	"java.lang.Exception":                          "java.lang.Throwable",
	"java.lang.Error":                              "java.lang.Throwable",
	"java.lang.RuntimeException":                   "java.lang.Exception",
	"java.lang.NumberFormatException":              "java.lang.IllegalArgumentException",
	"java.lang.IllegalArgumentException":           "java.lang.RuntimeException",
	"java.lang.IllegalStateException":              "java.lang.RuntimeException",
	"java.lang.NullPointerException":               "java.lang.RuntimeException",
	"java.lang.ClassCastException":                 "java.lang.RuntimeException",
	"java.lang.IndexOutOfBoundsException":          "java.lang.RuntimeException",
	"java.lang.ArrayIndexOutOfBoundsException":     "java.lang.IndexOutOfBoundsException",
	"java.lang.StringIndexOutOfBoundsException":    "java.lang.IndexOutOfBoundsException",
	"java.lang.ArithmeticException":                "java.lang.RuntimeException",
	"java.lang.ArrayStoreException":                "java.lang.RuntimeException",
	"java.lang.NegativeArraySizeException":         "java.lang.RuntimeException",
	"java.lang.UnsupportedOperationException":      "java.lang.RuntimeException",
	"java.lang.SecurityException":                  "java.lang.RuntimeException",
	"java.lang.ClassNotFoundException":             "java.lang.ReflectiveOperationException",
	"java.lang.NoSuchMethodException":              "java.lang.ReflectiveOperationException",
	"java.lang.NoSuchFieldException":               "java.lang.ReflectiveOperationException",
	"java.lang.InstantiationException":             "java.lang.ReflectiveOperationException",
	"java.lang.IllegalAccessException":             "java.lang.ReflectiveOperationException",
	"java.lang.ReflectiveOperationException":       "java.lang.Exception",
	"java.lang.CloneNotSupportedException":         "java.lang.Exception",
	"java.lang.InterruptedException":               "java.lang.Exception",
	"java.lang.AssertionError":                     "java.lang.Error",
	"java.lang.StackOverflowError":                 "java.lang.VirtualMachineError",
	"java.lang.OutOfMemoryError":                   "java.lang.VirtualMachineError",
	"java.lang.VirtualMachineError":                "java.lang.Error",
	"java.lang.LinkageError":                       "java.lang.Error",
	"java.lang.NoSuchMethodError":                  "java.lang.IncompatibleClassChangeError",
	"java.lang.NoSuchFieldError":                   "java.lang.IncompatibleClassChangeError",
	"java.lang.IncompatibleClassChangeError":       "java.lang.LinkageError",
	"java.lang.NoClassDefFoundError":               "java.lang.LinkageError",
	"java.lang.ExceptionInInitializerError":        "java.lang.LinkageError",
	"java.util.NoSuchElementException":             "java.lang.RuntimeException",
	"java.util.ConcurrentModificationException":    "java.lang.RuntimeException",
	"java.util.EmptyStackException":                "java.lang.RuntimeException",
	"java.util.MissingResourceException":           "java.lang.RuntimeException",
	"java.util.IllegalFormatException":             "java.lang.IllegalArgumentException",
	"java.util.regex.PatternSyntaxException":       "java.lang.IllegalArgumentException",
	"java.nio.charset.IllegalCharsetNameException": "java.lang.IllegalArgumentException",
	"java.nio.charset.UnsupportedCharsetException": "java.lang.IllegalArgumentException",
	"java.nio.BufferOverflowException":             "java.lang.RuntimeException",
	"java.nio.BufferUnderflowException":            "java.lang.RuntimeException",
	"java.io.UncheckedIOException":                 "java.lang.RuntimeException",
	"java.io.IOException":                          "java.lang.Exception",
	"java.io.EOFException":                         "java.io.IOException",
	"java.io.FileNotFoundException":                "java.io.IOException",
	"java.io.CharConversionException":              "java.io.IOException",
	"java.io.UnsupportedEncodingException":         "java.io.IOException",
	"java.io.ObjectStreamException":                "java.io.IOException",
	"java.io.NotSerializableException":             "java.io.ObjectStreamException",
	"java.io.InvalidClassException":                "java.io.ObjectStreamException",
	"java.util.zip.ZipException":                   "java.io.IOException",
	"java.util.zip.DataFormatException":            "java.lang.Exception",
	"java.text.ParseException":                     "java.lang.Exception",
	"java.sql.SQLException":                        "java.lang.Exception",
	"org.w3c.dom.DOMException":                     "java.lang.RuntimeException",
	"javax.xml.stream.XMLStreamException":          "java.lang.Exception",

	// Project exceptions met in Defects4J's trigger tests.
	"com.fasterxml.jackson.core.JsonProcessingException":                                  "java.io.IOException",
	"com.fasterxml.jackson.core.JsonParseException":                                       "com.fasterxml.jackson.core.JsonProcessingException",
	"com.fasterxml.jackson.core.JsonGenerationException":                                  "com.fasterxml.jackson.core.JsonProcessingException",
	"com.fasterxml.jackson.databind.JsonMappingException":                                 "com.fasterxml.jackson.core.JsonProcessingException",
	"com.fasterxml.jackson.databind.exc.MismatchedInputException":                         "com.fasterxml.jackson.databind.JsonMappingException",
	"com.fasterxml.jackson.databind.exc.InvalidFormatException":                           "com.fasterxml.jackson.databind.exc.MismatchedInputException",
	"com.fasterxml.jackson.databind.exc.InvalidDefinitionException":                       "com.fasterxml.jackson.databind.JsonMappingException",
	"com.fasterxml.jackson.databind.exc.PropertyBindingException":                         "com.fasterxml.jackson.databind.exc.MismatchedInputException",
	"com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException":                    "com.fasterxml.jackson.databind.exc.PropertyBindingException",
	"com.fasterxml.jackson.databind.deser.UnresolvedForwardReference":                     "com.fasterxml.jackson.databind.JsonMappingException",
	"com.google.gson.JsonParseException":                                                  "java.lang.RuntimeException",
	"com.google.gson.JsonSyntaxException":                                                 "com.google.gson.JsonParseException",
	"com.google.gson.stream.MalformedJsonException":                                       "java.io.IOException",
	"org.joda.time.IllegalFieldValueException":                                            "java.lang.IllegalArgumentException",
	"org.jsoup.select.Selector$SelectorParseException":                                    "java.lang.IllegalStateException",
	"org.jsoup.UncheckedIOException":                                                      "java.lang.RuntimeException",
	"org.jfree.data.UnknownKeyException":                                                  "java.lang.IllegalArgumentException",
	"org.mockito.exceptions.base.MockitoException":                                        "java.lang.RuntimeException",
	"org.mockito.exceptions.misusing.MissingMethodInvocationException":                    "org.mockito.exceptions.base.MockitoException",
	"org.mockito.internal.creation.instance.InstantationException":                        "org.mockito.exceptions.base.MockitoException",
	"org.apache.commons.cli.ParseException":                                               "java.lang.Exception",
	"org.apache.commons.cli.AlreadySelectedException":                                     "org.apache.commons.cli.ParseException",
	"org.apache.commons.cli.UnrecognizedOptionException":                                  "org.apache.commons.cli.ParseException",
	"org.apache.commons.cli.AmbiguousOptionException":                                     "org.apache.commons.cli.UnrecognizedOptionException",
	"org.apache.commons.cli2.OptionException":                                             "java.lang.Exception",
	"org.apache.commons.codec.DecoderException":                                           "java.lang.Exception",
	"org.apache.commons.compress.compressors.CompressorException":                         "java.lang.Exception",
	"org.apache.commons.compress.archivers.ArchiveException":                              "java.lang.Exception",
	"org.tukaani.xz.XZIOException":                                                        "java.io.IOException",
	"org.tukaani.xz.UnsupportedOptionsException":                                          "org.tukaani.xz.XZIOException",
	"org.apache.commons.jxpath.JXPathException":                                           "java.lang.RuntimeException",
	"org.apache.commons.jxpath.JXPathNotFoundException":                                   "org.apache.commons.jxpath.JXPathException",
	"org.apache.commons.lang.SerializationException":                                      "java.lang.RuntimeException",
	"org.apache.commons.lang3.SerializationException":                                     "java.lang.RuntimeException",
	"org.apache.commons.math.MathException":                                               "java.lang.Exception",
	"org.apache.commons.math.ConvergenceException":                                        "org.apache.commons.math.MathException",
	"org.apache.commons.math.MaxIterationsExceededException":                              "org.apache.commons.math.ConvergenceException",
	"org.apache.commons.math.optimization.OptimizationException":                          "org.apache.commons.math.ConvergenceException",
	"org.apache.commons.math.MathRuntimeException":                                        "java.lang.RuntimeException",
	"org.apache.commons.math.exception.MathIllegalStateException":                         "java.lang.IllegalStateException",
	"org.apache.commons.math.exception.MathIllegalArgumentException":                      "java.lang.IllegalArgumentException",
	"org.apache.commons.math.exception.MathIllegalNumberException":                        "org.apache.commons.math.exception.MathIllegalArgumentException",
	"org.apache.commons.math.exception.NumberIsTooSmallException":                         "org.apache.commons.math.exception.MathIllegalNumberException",
	"org.apache.commons.math.exception.NotStrictlyPositiveException":                      "org.apache.commons.math.exception.NumberIsTooSmallException",
	"org.apache.commons.math.exception.MaxCountExceededException":                         "org.apache.commons.math.exception.MathIllegalStateException",
	"org.apache.commons.math.exception.TooManyEvaluationsException":                       "org.apache.commons.math.exception.MaxCountExceededException",
	"org.apache.commons.math.optimization.direct.BOBYQAOptimizer$PathIsExploredException": "java.lang.RuntimeException",
	"org.apache.commons.math3.exception.MathIllegalStateException":                        "java.lang.IllegalStateException",
	"org.apache.commons.math3.exception.MathIllegalArgumentException":                     "java.lang.IllegalArgumentException",
	"org.apache.commons.math3.exception.ConvergenceException":                             "org.apache.commons.math3.exception.MathIllegalStateException",
	"org.apache.commons.math3.exception.MaxCountExceededException":                        "org.apache.commons.math3.exception.MathIllegalStateException",
	"org.apache.commons.math3.exception.TooManyEvaluationsException":                      "org.apache.commons.math3.exception.MaxCountExceededException",
	"org.apache.commons.math3.fraction.FractionConversionException":                       "org.apache.commons.math3.exception.ConvergenceException",
}

// junitPrefixes are the packages whose exceptions are test outcomes, not
// production failures (§3.2 F1).
var junitPrefixes = []string{"junit.framework.", "org.junit.", "org.opentest4j."}

// Resolve classifies a thrown class. topFrame is the first stack frame of
// the exception (may be empty); it resolves anonymous subclasses such as
// commons-math's MathRuntimeException$4, created by a factory method
// createIllegalArgumentException. With exact, only the seven java.lang
// classes are targets; their subclasses count as other unchecked.
func Resolve(class, topFrame string, exact bool) Resolution {
	r := Resolution{Class: class}
	for _, p := range junitPrefixes {
		if strings.HasPrefix(class, p) {
			r.Kind = KindJUnit
			return r
		}
	}
	start := class
	if _, known := parent[class]; !known && isAnonymous(class) {
		if c, ok := factoryClass(topFrame); ok {
			start, r.Via = c, "factory "+frameMethod(topFrame)
		}
	}
	if chain := r.climb(start, exact); len(chain) > 1 {
		via := strings.Join(chain, " > ")
		if r.Via != "" {
			via = r.Via + ": " + via
		}
		r.Via = via
	}
	return r
}

// rootKinds are the roots of the hierarchy below which a class that is
// not a target is other unchecked or checked.
var rootKinds = map[string]Kind{
	"java.lang.RuntimeException": KindUnchecked, "java.lang.Error": KindUnchecked,
	"java.lang.Exception": KindChecked, "java.lang.Throwable": KindChecked,
}

// climb walks the superclasses from start until a target (with exact,
// only r.Class itself) or a root of rootKinds, setting r's Kind (and
// Type), and returns the chain walked. An unknown superclass, a cycle or
// an over-long chain makes r unknown, with why in Via, and returns nil.
func (r *Resolution) climb(start string, exact bool) []string {
	var chain []string
	for c, steps := start, 0; steps < 32; steps++ {
		chain = append(chain, c)
		if t, ok := targetClass[c]; ok && (!exact || c == r.Class) {
			r.Kind, r.Type = KindTarget, t
			return chain
		}
		if k, ok := rootKinds[c]; ok {
			r.Kind = k
			return chain
		}
		p, known := parent[c]
		if !known {
			r.Kind, r.Via = KindUnknown, guess(c)
			return nil
		}
		c = p
	}
	r.Kind, r.Via = KindUnknown, "superclass chain too long"
	return nil
}

// isAnonymous reports whether class is an anonymous nested class (Outer$3).
func isAnonymous(class string) bool {
	i := strings.LastIndexByte(class, '$')
	if i < 0 || i == len(class)-1 {
		return false
	}
	for _, r := range class[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// frameMethod returns "Class.method" of a frame "pkg.Class.method(File:1)".
func frameMethod(frame string) string {
	if i := strings.IndexByte(frame, '('); i >= 0 {
		frame = frame[:i]
	}
	return frame
}

// factoryClass resolves the factory frame "X.createFooException(...)" to a
// known JDK class named FooException.
func factoryClass(frame string) (string, bool) {
	m := frameMethod(frame)
	i := strings.LastIndexByte(m, '.')
	if i < 0 || !strings.HasPrefix(m[i+1:], "create") {
		return "", false
	}
	simple := strings.TrimPrefix(m[i+1:], "create")
	for c := range parent {
		if strings.HasPrefix(c, "java.") && strings.HasSuffix(c, "."+simple) {
			return c, true
		}
	}
	return "", false
}

// guess describes what the name of an unknown class suggests; the class
// stays unknown (and logged) either way.
func guess(class string) string {
	simple := class[strings.LastIndexByte(class, '.')+1:]
	switch {
	case strings.HasSuffix(simple, "RuntimeException"):
		return "unknown runtime: name ends in RuntimeException"
	case strings.HasSuffix(simple, "Error"):
		return "unknown: name ends in Error (unchecked if it extends java.lang.Error)"
	case strings.HasSuffix(simple, "Exception"):
		return "unknown: superclass not in the known hierarchy (checked or unchecked)"
	}
	return "unknown: not an exception class name"
}
