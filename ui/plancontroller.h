// PlanController: the one place the GUI calls the planner. It holds the three inputs (model,
// machine, options), re-plans whenever one changes and publishes the Plan every panel shows.
#pragma once

#include "metatypes.h"

#include "core/result.h"

#include <QObject>

#include <functional>
#include <optional>

namespace headroom::ui {

using PlanFunction =
    std::function<Result<Plan>(const ModelShape&, const HardwareSnapshot&, const PlanOptions&)>;

// headroom::makePlan.
PlanFunction defaultPlanFunction();

class PlanController : public QObject {
    Q_OBJECT
public:
    explicit PlanController(QObject* parent = nullptr);

    // Tests and benchmarks may price with another function; the GUI uses defaultPlanFunction().
    void setPlanFunction(PlanFunction f);

    void setModel(const ModelShape& model);
    void setHardware(const HardwareSnapshot& hw);
    void setOptions(const PlanOptions& options);

    bool hasModel() const { return m_model.has_value(); }
    const ModelShape* model() const { return m_model ? &*m_model : nullptr; }
    const HardwareSnapshot& hardware() const { return m_hardware; }
    bool hasHardware() const { return m_have_hardware; }
    const PlanOptions& options() const { return m_options; }
    // The latest plan (nullptr before the first one or after an error).
    const Plan* plan() const { return m_plan ? &*m_plan : nullptr; }
    const QString& errorText() const { return m_error; }

    // The current model and machine planned with other options (a comparison; changes nothing).
    Result<Plan> planWith(const PlanOptions& options) const;

    // Re-plans now with the current inputs (setters call it).
    void replan();

Q_SIGNALS:
    void optionsChanged(const headroom::PlanOptions& options);
    void hardwareChanged(const headroom::HardwareSnapshot& hw);
    void modelChanged(const headroom::ModelShape& model);
    void planChanged(const headroom::Plan& plan);
    // The inputs cannot be priced (bad options, an empty shape): the text names the problem.
    void planFailed(const QString& message);

private:
    PlanFunction m_plan_function;
    std::optional<ModelShape> m_model;
    HardwareSnapshot m_hardware;
    bool m_have_hardware = false;
    PlanOptions m_options;
    std::optional<Plan> m_plan;
    QString m_error;
};

} // namespace headroom::ui
