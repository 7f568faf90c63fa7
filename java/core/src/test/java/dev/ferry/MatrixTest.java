package dev.ferry;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test run once per {@link Target} of its class's {@link Matrix} slice that this test run takes
 * ({@link Target#underTest}). {@code @BeforeEach} methods and the test take the target as a
 * parameter; reports name each run {@code method()[target]}, e.g. {@code putThenGetReturnsValue()[rocksdb-jni-optimistic]}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@java.lang.annotation.Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@TestTemplate
@ExtendWith(MatrixExtension.class)
public @interface MatrixTest {
}
