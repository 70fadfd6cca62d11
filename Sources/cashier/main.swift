print("cashier")
