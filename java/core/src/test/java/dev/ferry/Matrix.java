package dev.ferry;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/**
 * Which {@link Target.Slice} of the matrix a suite's {@link MatrixTest}s run on; inherited by
 * subclasses.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@java.lang.annotation.Target(ElementType.TYPE)
public @interface Matrix {
    /** @return the slice of the matrix */
    Target.Slice value();
}
