public enum CashierPlaceholder {}
