// NudgeWidget: the widget's restore-nudge decision and the refresh that applies it.
