package dev.ferry;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Runs a {@link MatrixTest} once per target: each invocation resolves {@link Target} parameters
 * (of the test and of its {@code @BeforeEach} methods) to its target. A suite none of whose targets
 * this run takes gets one skipped invocation saying so.
 */
final class MatrixExtension implements TestTemplateInvocationContextProvider {
    @Override
    public boolean supportsTestTemplate(ExtensionContext context) {
        return context.getTestMethod().map(m -> AnnotationSupport.isAnnotated(m, MatrixTest.class)).orElse(false);
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
        Class<?> suite = context.getRequiredTestClass();
        Matrix matrix = AnnotationSupport.findAnnotation(suite, Matrix.class)
                .orElseThrow(() -> new IllegalStateException(suite.getName() + " has @MatrixTest methods but no @Matrix slice"));
        List<Target> targets = matrix.value().targets().stream().filter(Target::underTest).toList();
        if (targets.isEmpty()) {
            return Stream.of(new Skipped(matrix.value()));
        }
        return targets.stream().map(Invocation::new);
    }

    /** One run of a test on one target; a {@link NeedsRocksDb} test's run is disabled on Windows. */
    private record Invocation(Target target) implements TestTemplateInvocationContext, ParameterResolver, ExecutionCondition {
        @Override
        public String getDisplayName(int invocationIndex) {
            return "[" + target.id() + "]";
        }

        @Override
        public List<Extension> getAdditionalExtensions() {
            return List.of(this);
        }

        @Override
        public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
            return p.getParameter().getType() == Target.class;
        }

        @Override
        public Object resolveParameter(ParameterContext p, ExtensionContext e) {
            return target;
        }

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            boolean needsRocksDb = context.getTestMethod().map(m -> m.isAnnotationPresent(NeedsRocksDb.class)).orElse(false);
            return needsRocksDb && OS.WINDOWS.isCurrentOs() ? ConditionEvaluationResult.disabled(NeedsRocksDb.REASON)
                    : ConditionEvaluationResult.enabled("runs here");
        }
    }

    /** The stand-in when this run takes no target of the slice (JUnit 5.11 refuses a template without runs). */
    private record Skipped(Target.Slice slice) implements TestTemplateInvocationContext, ExecutionCondition {
        @Override
        public String getDisplayName(int invocationIndex) {
            return "[no target]";
        }

        @Override
        public List<Extension> getAdditionalExtensions() {
            return List.of(this);
        }

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return ConditionEvaluationResult.disabled("this run takes no target of " + slice + " (binding, platform or -Dferry.test.targets)");
        }
    }
}
