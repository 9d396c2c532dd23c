#include "plancontroller.h"

#include "core/planner.h"

namespace headroom::ui {

PlanFunction defaultPlanFunction() {
    return [](const ModelShape& m, const HardwareSnapshot& hw,
              const PlanOptions& o) -> Result<Plan> { return makePlan(m, hw, o); };
}

PlanController::PlanController(QObject* parent)
    : QObject(parent), m_plan_function(defaultPlanFunction()) {}

void PlanController::setPlanFunction(PlanFunction f) {
    m_plan_function = std::move(f);
    replan();
}

void PlanController::setModel(const ModelShape& model) {
    m_model = model;
    Q_EMIT modelChanged(model);
    replan();
}

void PlanController::setHardware(const HardwareSnapshot& hw) {
    m_hardware = hw;
    m_have_hardware = true;
    Q_EMIT hardwareChanged(hw);
    replan();
}

void PlanController::setOptions(const PlanOptions& options) {
    m_options = options;
    Q_EMIT optionsChanged(options);
    replan();
}

Result<Plan> PlanController::planWith(const PlanOptions& options) const {
    if (!m_model || !m_plan_function || !m_have_hardware)
        return makeError(ErrorCode::InvalidArgument, "no model or machine to plan for");
    return m_plan_function(*m_model, m_hardware, options);
}

void PlanController::replan() {
    // Until a machine is known (probe running, nothing typed) there is nothing to plan for.
    if (!m_model || !m_plan_function || !m_have_hardware) return;
    Result<Plan> r = m_plan_function(*m_model, m_hardware, m_options);
    if (!r) {
        m_plan.reset();
        m_error = qs(r.error().message);
        if (!r.error().details.empty())
            m_error += QStringLiteral(" (%1)").arg(qs(r.error().details));
        Q_EMIT planFailed(m_error);
        return;
    }
    m_error.clear();
    m_plan = std::move(r).value();
    Q_EMIT planChanged(*m_plan);
}

} // namespace headroom::ui
