public enum CashierClientPlaceholder {}
