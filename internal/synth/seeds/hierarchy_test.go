package seeds

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		class, frame string
		exact        bool
		want         Resolution
	}{
		{"java.lang.NullPointerException", "", false, Resolution{Class: "java.lang.NullPointerException", Kind: KindTarget, Type: NPE}},
		{"java.lang.NumberFormatException", "", false, Resolution{Class: "java.lang.NumberFormatException", Kind: KindTarget, Type: NFE}},
		{"java.lang.StringIndexOutOfBoundsException", "", true, Resolution{Class: "java.lang.StringIndexOutOfBoundsException", Kind: KindTarget, Type: SIOOBE}},
		{"java.lang.IndexOutOfBoundsException", "", false, Resolution{Class: "java.lang.IndexOutOfBoundsException", Kind: KindUnchecked, Via: "java.lang.IndexOutOfBoundsException > java.lang.RuntimeException"}},
		{"org.joda.time.IllegalFieldValueException", "", false, Resolution{Class: "org.joda.time.IllegalFieldValueException", Kind: KindTarget, Type: IAE, Via: "org.joda.time.IllegalFieldValueException > java.lang.IllegalArgumentException"}},
		{"org.joda.time.IllegalFieldValueException", "", true, Resolution{Class: "org.joda.time.IllegalFieldValueException", Kind: KindUnchecked, Via: "org.joda.time.IllegalFieldValueException > java.lang.IllegalArgumentException > java.lang.RuntimeException"}},
		{"junit.framework.AssertionFailedError", "", false, Resolution{Class: "junit.framework.AssertionFailedError", Kind: KindJUnit}},
		{"org.junit.ComparisonFailure", "", false, Resolution{Class: "org.junit.ComparisonFailure", Kind: KindJUnit}},
		{"java.lang.AssertionError", "", false, Resolution{Class: "java.lang.AssertionError", Kind: KindUnchecked, Via: "java.lang.AssertionError > java.lang.Error"}},
		{"java.lang.StackOverflowError", "", false, Resolution{Class: "java.lang.StackOverflowError", Kind: KindUnchecked, Via: "java.lang.StackOverflowError > java.lang.VirtualMachineError > java.lang.Error"}},
		{"com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException", "", false, Resolution{Class: "com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException", Kind: KindChecked,
			Via: "com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException > com.fasterxml.jackson.databind.exc.PropertyBindingException > com.fasterxml.jackson.databind.exc.MismatchedInputException > com.fasterxml.jackson.databind.JsonMappingException > com.fasterxml.jackson.core.JsonProcessingException > java.io.IOException > java.lang.Exception"}},
		{"java.lang.Exception", "", false, Resolution{Class: "java.lang.Exception", Kind: KindChecked}},
		{"org.apache.commons.math.MathRuntimeException$4", "org.apache.commons.math.MathRuntimeException.createIllegalArgumentException(MathRuntimeException.java:387)", false,
			Resolution{Class: "org.apache.commons.math.MathRuntimeException$4", Kind: KindTarget, Type: IAE, Via: "factory org.apache.commons.math.MathRuntimeException.createIllegalArgumentException"}},
		{"org.apache.commons.math.MathRuntimeException$6", "org.apache.commons.math.MathRuntimeException.createConcurrentModificationException(MathRuntimeException.java:373)", false,
			Resolution{Class: "org.apache.commons.math.MathRuntimeException$6", Kind: KindUnchecked, Via: "factory org.apache.commons.math.MathRuntimeException.createConcurrentModificationException: java.util.ConcurrentModificationException > java.lang.RuntimeException"}},
		{"org.apache.commons.math.MathRuntimeException$4", "x.Y.z(Y.java:1)", false, Resolution{Class: "org.apache.commons.math.MathRuntimeException$4", Kind: KindUnknown, Via: "unknown: not an exception class name"}},
		{"demo.FancyRuntimeException", "", false, Resolution{Class: "demo.FancyRuntimeException", Kind: KindUnknown, Via: "unknown runtime: name ends in RuntimeException"}},
		{"demo.BadError", "", false, Resolution{Class: "demo.BadError", Kind: KindUnknown, Via: "unknown: name ends in Error (unchecked if it extends java.lang.Error)"}},
		{"demo.OddException", "", false, Resolution{Class: "demo.OddException", Kind: KindUnknown, Via: "unknown: superclass not in the known hierarchy (checked or unchecked)"}},
	}
	for _, tt := range tests {
		got := Resolve(tt.class, tt.frame, tt.exact)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Resolve(%q, exact=%v) (-want +got):\n%s", tt.class, tt.exact, d)
		}
	}
}

// TestHierarchyTerminates walks every known class to a root.
func TestHierarchyTerminates(t *testing.T) {
	for c := range parent {
		if r := Resolve(c, "", false); r.Kind == KindUnknown {
			t.Errorf("known class %s resolves to unknown: %s", c, r.Via)
		}
	}
	for _, ty := range Types {
		if r := Resolve(ty.Class(), "", true); r.Type != ty {
			t.Errorf("%s: Class() = %q resolves to %q", ty, ty.Class(), r.Type)
		}
	}
}
